// physbook's game view: draws frames of a world, sent as float32 primitives, on a canvas.
//
// One file serves two players. As an anywidget module (the default export's render) it is
// the live view of GameView: each frame arrives as one message, is drawn on the next
// animation frame, and is acknowledged after drawing (in batches), so the kernel never sends
// faster than the display shows. physbook.viz.replay inlines the same code in a plain script
// element (the last line, the export, cut off) and calls physbookReplay to play frames
// embedded in the page. A primitive is [code, style, numbers...], as physbook.viz.frame_encoding writes.
// Plain DOM and canvas 2D only: no network, no other library.

const FALLBACK_STYLE = { fill: null, line: "rgb(0, 0, 0)" };
const LINE_PIXELS = 1.5;

// A float32 view of a message buffer (DataView, ArrayBuffer or typed array), copied so that
// its offset is aligned to 4 bytes whatever the transport gave.
function frameValues(buffer) {
  if (buffer instanceof ArrayBuffer) return new Float32Array(buffer.slice(0));
  const bytes = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  return new Float32Array(bytes);
}

// How a view rectangle (left, bottom, right, top; metres, y up) sits on a canvas of
// width × height CSS pixels: equal scale, centred.
function viewTransform(view, width, height) {
  const [left, bottom, right, top] = view;
  const scale = Math.min(width / (right - left), height / (top - bottom));
  const offsetX = (width - scale * (right - left)) / 2;
  const offsetY = (height - scale * (top - bottom)) / 2;
  return { left, top, scale, offsetX, offsetY };
}

function paint(ctx, style) {
  if (style.fill) {
    ctx.fillStyle = style.fill;
    ctx.fill();
  }
  ctx.strokeStyle = style.line;
  ctx.stroke();
}

// Draw every primitive of ``values`` in world coordinates (the context's transform maps
// metres to pixels); ``scale`` is pixels per metre, for line widths and point sizes.
function drawPrimitives(ctx, values, palette, scale) {
  const turn = 2 * Math.PI;
  ctx.lineWidth = LINE_PIXELS / scale;
  ctx.lineJoin = "round";
  ctx.lineCap = "round";
  let at = 0;
  while (at < values.length) {
    const code = values[at];
    const style = palette[values[at + 1]] || FALLBACK_STYLE;
    const v = (k) => values[at + 2 + k];
    ctx.beginPath();
    if (code === 0) { // circle: a disc, and a radius towards its angle
      const [x, y, r, angle] = [v(0), v(1), v(2), v(3)];
      ctx.arc(x, y, r, 0, turn);
      paint(ctx, style);
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x + r * Math.cos(angle), y + r * Math.sin(angle));
      ctx.strokeStyle = style.line;
      ctx.stroke();
      at += 6;
    } else if (code === 1) { // polygon, grown by a radius: an arc at each corner
      const radius = v(0);
      const count = v(1);
      const px = (k) => v(2 + 2 * k);
      const py = (k) => v(3 + 2 * k);
      if (radius > 0 && count > 1) {
        for (let k = 0; k < count; k++) {
          const before = (k + count - 1) % count;
          const after = (k + 1) % count;
          // outward normals of the edges into and out of corner k (counter-clockwise)
          const start = Math.atan2(-(px(k) - px(before)), py(k) - py(before));
          let end = Math.atan2(-(px(after) - px(k)), py(after) - py(k));
          while (end < start) end += turn;
          ctx.arc(px(k), py(k), radius, start, end);
        }
      } else if (radius > 0) {
        ctx.arc(px(0), py(0), radius, 0, turn);
      } else {
        ctx.moveTo(px(0), py(0));
        for (let k = 1; k < count; k++) ctx.lineTo(px(k), py(k));
      }
      ctx.closePath();
      paint(ctx, style);
      at += 4 + 2 * count;
    } else if (code === 2) { // capsule: two half discs joined
      const [x1, y1, x2, y2, r] = [v(0), v(1), v(2), v(3), v(4)];
      const along = Math.atan2(y2 - y1, x2 - x1);
      ctx.arc(x2, y2, r, along - Math.PI / 2, along + Math.PI / 2);
      ctx.arc(x1, y1, r, along + Math.PI / 2, along + 1.5 * Math.PI);
      ctx.closePath();
      paint(ctx, style);
      at += 7;
    } else if (code === 3) { // segment
      ctx.moveTo(v(0), v(1));
      ctx.lineTo(v(2), v(3));
      ctx.strokeStyle = style.line;
      ctx.stroke();
      at += 6;
    } else if (code === 4) { // point: a dot of a size in pixels
      ctx.arc(v(0), v(1), v(2) / 2 / scale, 0, turn);
      ctx.fillStyle = style.fill || style.line;
      ctx.fill();
      at += 5;
    } else if (code === 5) { // box, outline only
      ctx.rect(v(0), v(1), v(2) - v(0), v(3) - v(1));
      ctx.strokeStyle = style.line;
      ctx.stroke();
      at += 6;
    } else {
      break; // an unknown code: the rest cannot be read
    }
  }
}

function element(tag, className, parent) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (parent) parent.appendChild(node);
  return node;
}

function button(label, title, parent) {
  const node = element("button", "physbook-game-button", parent);
  node.type = "button";
  node.textContent = label;
  node.title = title;
  node.style.marginRight = "4px";
  return node;
}

// The parts every player has: a root, a HiDPI canvas of width × height CSS pixels, a row of
// controls, a status line. ``draw(values, palette, view)`` draws one frame; ``toWorld``
// turns a pointer event into world coordinates of the last frame's view.
function createView(root, rootClass, width, height) {
  root.classList.add(rootClass);
  root.style.fontFamily = "sans-serif";
  root.style.fontSize = "13px";
  const canvas = element("canvas", "physbook-game-canvas", root);
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.maxWidth = "100%";
  canvas.style.height = "auto";
  canvas.style.display = "block";
  canvas.style.background = "rgb(250, 250, 247)";
  canvas.style.border = "1px solid rgb(200, 200, 200)";
  canvas.style.touchAction = "none"; // a drag on a touch screen moves the game, not the page
  const controls = element("div", "physbook-game-controls", root);
  controls.style.margin = "4px 0";
  const status = element("div", "physbook-game-status", root);
  status.style.whiteSpace = "pre";
  const ctx = canvas.getContext("2d");
  let last = viewTransform([0, 0, 1, 1], width, height);

  function draw(values, palette, view) {
    const t = viewTransform(view, width, height);
    last = t;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    // world (m, y up) → CSS pixels (y down) → device pixels
    ctx.setTransform(ratio * t.scale, 0, 0, -ratio * t.scale,
      ratio * (t.offsetX - t.left * t.scale), ratio * (t.offsetY + t.top * t.scale));
    drawPrimitives(ctx, values, palette, t.scale);
    const shown = view.join(" ");
    if (root.dataset.view !== shown) root.dataset.view = shown;
  }

  function toWorld(event) {
    // the canvas's content box (inside its border), in CSS pixels of the drawing
    const box = canvas.getBoundingClientRect();
    const x = (event.clientX - box.left - canvas.clientLeft) * (width / canvas.clientWidth);
    const y = (event.clientY - box.top - canvas.clientTop) * (height / canvas.clientHeight);
    return [last.left + (x - last.offsetX) / last.scale, last.top - (y - last.offsetY) / last.scale];
  }

  return { root, canvas, controls, status, draw, toWorld };
}

function changeText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// Frames per second from the times (ms) of the frames drawn in the last second.
function rateOver(times, now) {
  times.push(now);
  while (times.length && times[0] <= now - 1000) times.shift();
  return times.length;
}

// The live view: draws each frame the kernel sends, acknowledges it, and sends the
// pointer, the keys and the buttons back.
function render({ model, el }) {
  const view = createView(el, "physbook-game", model.get("width"), model.get("height"));
  const { root, canvas, controls, status } = view;
  root.dataset.frames = "0";
  root.dataset.fps = "0";
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  canvas.setAttribute("data-lm-suppress-shortcuts", "true");
  canvas.tabIndex = 0;
  const pause = button("Pause", "Pause", controls);
  const step = button("Step", "Step", controls);
  const reset = button("Reset", "Reset", controls);
  const readout = element("span", "physbook-game-fps", controls);
  readout.style.marginLeft = "8px";
  const palette = [];
  const ackTimes = [];
  const queue = []; // frames received and not yet drawn, oldest first
  let paused = false;
  let closed = false;
  let frames = 0;
  // frames handled (drawn or passed over) since the last acknowledgement
  let handled = 0;
  let drawnSince = 0;
  let lastHandled = -1;
  let ackTimer = null;

  // One acknowledgement for every frame handled so far: the kernel frees their places.
  function acknowledge() {
    if (ackTimer !== null) clearTimeout(ackTimer);
    ackTimer = null;
    if (handled === 0 || closed) return;
    model.send({ type: "ack", frame: lastHandled, drawn: drawnSince });
    handled = 0;
    drawnSince = 0;
  }

  // Frame ``header.frame`` was drawn (or passed over). Frames are acknowledged in batches:
  // each message the page sends makes the kernel report itself busy and then idle, and
  // JupyterLab restyles its kernel indicators on each report, which costs the page more than
  // drawing a frame. A batch goes once ``ack_every`` frames wait, or ``ack_interval`` ms
  // after the first of them, whichever comes first.
  function handle(header, drawn) {
    lastHandled = header.frame;
    handled += 1;
    if (drawn) drawnSince += 1;
    if (handled >= header.ack_every) acknowledge();
    else if (ackTimer === null) ackTimer = setTimeout(acknowledge, header.ack_interval);
  }

  function drawNext() {
    if (closed || queue.length === 0) return;
    const { header, values } = queue.shift();
    if (queue.length > 0) requestAnimationFrame(drawNext);
    view.draw(values, palette, header.view);
    // The page around the canvas is large (JupyterLab): each change of the text or the
    // attributes costs a style pass, so only what changed is written.
    const fps = rateOver(ackTimes, performance.now());
    frames += 1;
    changeText(status, header.status);
    if (status.style.color) status.style.color = "";
    if (paused !== header.paused) {
      paused = header.paused;
      pause.textContent = paused ? "Play" : "Pause";
      pause.title = paused ? "Play" : "Pause";
    }
    if (root.dataset.fps !== String(fps)) {
      root.dataset.fps = String(fps);
      readout.textContent = `${fps} frames/s`;
    }
    root.dataset.frames = String(frames);
    handle(header, true);
  }

  function onMessage(content, buffers) {
    if (content.type === "frame") {
      for (const [index, entry] of content.palette) palette[index] = entry;
      // Frames reach the page unevenly, often several together after a pause of the kernel
      // or the server. Each display refresh draws the oldest waiting frame, so a burst is
      // shown at the display's pace; more than ``queue_limit`` waiting means the page is
      // behind, and the oldest is passed over (acknowledged undrawn).
      if (queue.length === 0) requestAnimationFrame(drawNext);
      queue.push({ header: content, values: frameValues(buffers[0]) });
      while (queue.length > content.queue_limit) handle(queue.shift().header, false);
    } else if (content.type === "error") {
      changeText(status, content.text);
      status.style.color = "rgb(200, 0, 0)";
    }
  }
  model.on("msg:custom", onMessage);

  pause.addEventListener("click", () => model.send({ type: "button", name: paused ? "play" : "pause" }));
  step.addEventListener("click", () => model.send({ type: "button", name: "step" }));
  reset.addEventListener("click", () => model.send({ type: "button", name: "reset" }));

  function pointer(type) {
    return (event) => {
      if (type === "down") {
        if (event.button !== 0) return;
        canvas.focus();
        canvas.setPointerCapture(event.pointerId);
      }
      event.preventDefault();
      const [x, y] = view.toWorld(event);
      model.send({ type, x, y });
    };
  }
  canvas.addEventListener("pointerdown", pointer("down"));
  canvas.addEventListener("pointermove", pointer("move"));
  canvas.addEventListener("pointerup", pointer("up"));
  canvas.addEventListener("pointercancel", pointer("up"));

  function key(type) {
    return (event) => {
      if (event.key === "Tab") return; // the way out of the canvas stays the browser's
      // JupyterLab's shortcuts and the page's scrolling must not see the game's keys
      event.preventDefault();
      event.stopPropagation();
      if (!event.repeat) model.send({ type, key: event.key });
    };
  }
  canvas.addEventListener("keydown", key("keydown"));
  canvas.addEventListener("keyup", key("keyup"));

  model.send({ type: "ready" });
  // A view out of sight (scrolled away) tells the kernel, which stops its loop until the
  // view is seen again: two games in one notebook do not both run, and neither runs unseen.
  const sight = new IntersectionObserver((entries) => {
    const seen = entries[entries.length - 1].isIntersecting;
    model.send({ type: "visible", visible: seen });
  });
  sight.observe(canvas);

  return () => {
    closed = true;
    if (ackTimer !== null) clearTimeout(ackTimer);
    sight.disconnect();
    model.off("msg:custom", onMessage);
  };
}

// The offline player: ``data`` holds every frame (base64 float32, one after another), their
// offsets, views, status lines and step numbers, and the palette; nothing is asked of a
// kernel.
function physbookReplay(root, data) {
  const view = createView(root, "physbook-replay", data.width, data.height);
  const binary = atob(data.frames);
  const bytes = new Uint8Array(binary.length);
  for (let k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
  const values = new Float32Array(bytes.buffer);
  const count = data.steps.length;
  const play = button("Play", "Play", view.controls);
  const slider = element("input", "physbook-replay-slider", view.controls);
  slider.type = "range";
  slider.min = "0";
  slider.max = String(count - 1);
  slider.value = "0";
  slider.style.verticalAlign = "middle";
  const label = element("span", "physbook-replay-step", view.controls);
  label.style.marginLeft = "8px";
  let shown = 0;
  let timer = null;

  function show(frame) {
    shown = frame;
    const frameValues = values.subarray(data.offsets[frame], data.offsets[frame + 1]);
    view.draw(frameValues, data.palette, data.views[frame]);
    changeText(view.status, data.statuses[data.status_index[frame]]);
    label.textContent = `step ${data.steps[frame]}`;
    slider.value = String(frame);
    root.dataset.frame = String(frame);
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "Play";
    play.title = "Play";
  }

  play.addEventListener("click", () => {
    if (timer !== null) {
      stop();
      return;
    }
    if (shown >= count - 1) show(0);
    play.textContent = "Pause";
    play.title = "Pause";
    timer = setInterval(() => {
      if (shown >= count - 1) stop();
      else show(shown + 1);
    }, 1000 / data.fps);
  });
  slider.addEventListener("input", () => {
    stop();
    show(Number(slider.value));
  });
  show(0);
}

export default { render };

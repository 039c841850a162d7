"""What the drawing layer needs beyond the engine, checked before anything is drawn.

physbook.viz draws with matplotlib, makes sliders with ipywidgets and the live game view
with anywidget; the engine needs none of them, so ``pip install physbook`` installs none.
Without them, importing physbook.viz raises an ImportError that names the extra which brings
them.
"""

import importlib.util

#: The packages physbook.viz imports, all installed by ``pip install "physbook[viz]"``.
REQUIRED = ("matplotlib", "ipywidgets", "anywidget")

_missing = [name for name in REQUIRED if importlib.util.find_spec(name) is None]
if _missing:
    raise ImportError(f"physbook.viz needs {' and '.join(_missing)}, which the engine alone "
                      'does not install: pip install "physbook[viz]"', name=_missing[0])

"""rules layer: what a game is, in plain Python (imports nothing from the engine).

``cards`` (kinds, tokens, points), ``limits`` (every size limit), ``models``
and ``editions`` (the shared rule models; edition files), ``config``
(``GameConfig``: loading, validation, hashing), ``settings`` (every setting's
label and wording, for reports and help), ``errors`` and ``yamlio`` (one-line
errors; reading YAML and finding the built-in files).
"""

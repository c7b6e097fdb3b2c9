"""Training the judge's Whisper decoder on the game's own words (``scripts/train_judge.py``).

:mod:`.data` makes the clips (voices, what they say, the rooms they are heard in) with no torch;
:mod:`.decoder` and :mod:`.fit` need the ``train`` extra (torch, transformers). The model card in
``models/whisper-tiny.en-earl/README.md`` says how the shipped judge was made.
"""

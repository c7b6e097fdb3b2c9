"""Words as heard: normalising, aligning, the turn's context and a line's verdict. No audio, no numpy."""

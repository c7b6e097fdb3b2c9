"""Words as heard: normalising, aligning, the turn's context and grading a line. No audio, no numpy."""

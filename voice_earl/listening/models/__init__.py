"""The models on disk: finding them, and downloading, checking and installing vosk's and the judge's."""

"""Helpers the tests share: audio to hear, scripted players, faulty disks, terminals, phones and browsers."""

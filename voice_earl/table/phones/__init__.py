"""Phones as private hands: each player's hand and buttons on their own phone, served by the laptop.

- :mod:`tokens`: the unguessable address of each player's page, kept with the series;
- :mod:`views`: what one player may see, built on the game's thread as an immutable snapshot;
- :mod:`gate`: the turn that phone taps may act on, and the taps waiting for the session;
- :mod:`server`: the aiohttp web server (pages, ``state.json``, WebSockets) on a thread of its own;
- :mod:`pages`: the HTML, CSS and JavaScript served from package data (no CDN);
- :mod:`qr`: QR codes (segno) for the terminal and as SVG for the join page;
- :mod:`network`: the laptop's address on the local network;
- :mod:`join`: showing each player their code before the game starts;
- :mod:`hub`: wiring it to a table (the session's listener, the inputs beside voice and keys);
- :mod:`mics` and :mod:`mic_gate`: with ``--phone-mics``, the phones as microphones (hold to speak),
  on the server's loop and on the game's side; :mod:`tls`: the certificate the pages are then
  served over HTTPS with.

Everything here needs the ``phones`` extra (aiohttp, segno, cryptography); the rest of the game never imports it
unless ``--phones`` is given.
"""

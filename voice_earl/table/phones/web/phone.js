// voice-earl phone page: shows this player's view and sends their taps. Served by the laptop; no CDN.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent);
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (all, key) => (key in values ? String(values[key]) : all));
  const now = () => performance.now();

  // A tap is taken once: after it the buttons rest for GUARD_MS and until the player's next turn has
  // been on the screen for SETTLE_MS, so the second tap of a double tap never lands on a new button.
  const GUARD_MS = 700;
  const SETTLE_MS = 450;
  // The page pings every PING_MS; a socket that answers nothing for DEAD_MS is dead (a Wi-Fi that
  // drops silently never closes it), and so is one that does not open within DEAD_MS.
  const PING_MS = 2000;
  const DEAD_MS = 5000;
  const CLOSE_ENDED = 4000;  // the series is over
  const CLOSE_STOPPED = 4001;  // stopped at the laptop: the same address works again once it is resumed

  function element(name, className, text) {
    const node = document.createElement(name);
    if (className) node.className = className;
    node.textContent = text;
    return node;
  }

  let state = null;
  let socket = null;
  let opened = false;  // the socket has opened and not died since
  let heard = 0;  // when the server was last heard
  let timer = null;
  let retry = 500;
  let closed = null;  // "ended" or "stopped" when the server closed the socket saying why
  let wasMine = false;
  let shownTurn = null;  // the turn id on the screen, and since when
  let shownAt = 0;
  let guard = null;  // after a tap: { turn, until, released }
  let leadsFor = null;  // the turn the rank buttons were drawn for
  let noticeTurn = null;
  let noticeTimer = null;
  let noticeMoves = null;  // a notice of a move taken back ends with the next move (turn ids come and go meanwhile)
  let shownUndo;  // the undo last shown as a notice (undefined: no state seen yet)
  let wake = null;

  // -- the connection: reconnects by itself after sleep, a lost Wi-Fi or a reload

  function connect() {
    if (socket !== null || closed === "ended") return;
    clearTimeout(timer);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(scheme + "//" + location.host + L.base + "/ws");
    socket = ws;
    heard = now();
    ws.onopen = () => {
      if (socket !== ws) return;
      retry = 500;
      heard = now();
      opened = true;
      closed = null;
      showLink();
    };
    ws.onmessage = (event) => {
      if (socket !== ws) return;
      heard = now();
      receive(JSON.parse(event.data));
    };
    ws.onclose = (event) => {
      if (socket !== ws) return;
      if (event.code === CLOSE_ENDED) closed = "ended";
      else if (event.code === CLOSE_STOPPED) closed = "stopped";
      lost(closed === "stopped" ? 5000 : retry);
    };
  }

  function lost(wait) {
    // The socket is gone (or dead): say so, grey the buttons, and try again unless the game has ended.
    const ws = socket;
    socket = null;
    opened = false;
    guard = null;  // a tap sent on it may never have arrived: back on the same turn, it may be made again
    if (ws !== null) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      try { ws.close(); } catch (error) { /* already closing */ }
    }
    showLink();
    if (state !== null) render();
    if (closed === "ended") return;
    clearTimeout(timer);
    timer = setTimeout(connect, wait);
    retry = Math.min(retry * 2, 5000);
  }

  function alive() {
    return socket !== null && opened && socket.readyState === WebSocket.OPEN;
  }

  let pinged = 0;
  setInterval(() => {
    if (socket === null) return;
    if (now() - heard > DEAD_MS) {
      lost(0);  // nothing heard: the socket is dead even if the browser does not know it yet
    } else if (alive() && now() - pinged >= PING_MS) {
      pinged = now();
      socket.send(JSON.stringify({ type: "ping" }));
    }
  }, 500);

  function showLink() {
    const on = alive();
    $("link").classList.toggle("on", on);
    document.body.classList.toggle("offline", !on && closed === null);
    const status = $("status");
    const text = closed === "ended" ? L.ended : (!on && closed === null ? L.offline : "");
    status.textContent = text;
    status.hidden = text === "";
    status.classList.toggle("alarm", closed === null);
    refreshButtons();
  }

  document.addEventListener("visibilitychange", () => { if (!document.hidden) connect(); });
  window.addEventListener("online", connect);
  window.addEventListener("offline", () => lost(retry));

  function receive(message) {
    if (message.type === "state") {
      if (outdated(message.build)) return;
      state = message.state;
      render();
    } else if (message.type === "refused") {
      notice(message.reason);
      release();
    } else if (message.type === "ignored" || message.type === "error") {
      release();
    } else {
      document.dispatchEvent(new CustomEvent("voice-earl:message", { detail: message }));  // mic.js
    }
  }

  function outdated(build) {
    // The laptop serves other pages than this one (it was upgraded while this page stayed open, as
    // across a stop and a resume): load them, once for each build, so that a mismatch never loops.
    if (!build || build === L.build) return false;
    const key = "voice-earl-reloaded-for";
    try {
      if (sessionStorage.getItem(key) === build) return false;
      sessionStorage.setItem(key, build);
    } catch (error) {
      return false;  // no storage: no way to tell a loop from a first time
    }
    location.reload();
    return true;
  }

  // -- taps

  function ready() {
    // Whether a tap may go now; when only time stands in the way, the buttons are looked at again then.
    const s = state;
    if (!s || s.phase !== "playing" || s.paused || !s.turn || !s.turn.yours || !s.turn.id || !alive()) return false;
    if (shownTurn !== s.turn.id) return false;
    if (guard !== null && !guard.released && guard.turn === s.turn.id) return false;  // the game has the tap
    const wait = Math.max(shownAt + SETTLE_MS, guard !== null ? guard.until : 0) - now();
    if (wait > 0) {
      clearTimeout(wake);
      wake = setTimeout(refreshButtons, wait + 20);
      return false;
    }
    return true;
  }

  function tap(action, rank) {
    if (!ready() || !state.legal.includes(action)) return;
    const message = { type: "tap", turn: state.turn.id, action: action };
    if (rank) message.rank = rank;
    socket.send(JSON.stringify(message));
    guard = { turn: state.turn.id, until: now() + GUARD_MS, released: false };
    refreshButtons();
  }

  function release() {
    // The game refused the tap: the same turn may be tapped again once the guard time is over.
    if (guard !== null) guard.released = true;
    refreshButtons();
  }

  function refreshButtons() {
    const live = ready();
    const legal = live ? state.legal : [];
    $("pass").disabled = !legal.includes("pass");
    $("play").disabled = !legal.includes("play");
    document.querySelectorAll("#leads button").forEach((b) => { b.disabled = !legal.includes("lead"); });
  }

  // A move taken back changes what everyone may do, and the last line is often below the fold of a small
  // phone: it is shown as a notice until the next move. Not the one found on (re)loading.
  function showUndo(s) {
    const key = s.last_undo ? `${s.moves}|${s.last}` : null;
    if (key && shownUndo !== undefined && key !== shownUndo) notice(s.last, s.moves);
    shownUndo = key;
  }

  function notice(text, moves = null) {
    const box = $("notice");
    box.textContent = text;
    box.hidden = false;
    noticeTurn = state && state.turn ? state.turn.id : null;
    noticeMoves = moves;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { box.hidden = true; }, 8000);
  }

  $("pass").addEventListener("click", () => tap("pass"));
  $("play").addEventListener("click", () => tap("play"));

  // -- drawing

  function render() {
    const s = state;
    const turn = s.turn ? s.turn.id : null;
    if (turn !== shownTurn) {
      shownTurn = turn;
      shownAt = now();
    }
    const over = noticeMoves !== null ? s.moves !== noticeMoves : noticeTurn !== turn;
    if (!$("notice").hidden && over) $("notice").hidden = true;  // a notice ends with its turn
    $("deal").textContent = s.deal ? (s.deals ? fmt(L.deal_of, { deal: s.deal, deals: s.deals }) : fmt(L.deal, { deal: s.deal })) : "";
    renderBanner(s);
    renderTable(s);
    renderResult(s);
    renderHand(s);
    renderPlayers(s);
    renderActions(s);
    $("last").textContent = s.last || "";
    showUndo(s);
    showLink();
    document.dispatchEvent(new CustomEvent("voice-earl:state", { detail: s }));  // mic.js
  }

  function banner(s) {
    // [whose, line, hint]
    const result = s.last_deal;
    // Closed by a stop at the laptop, even before the game began: nothing here waits for the game any more.
    if (s.phase === "stopped" || (closed === "stopped" && s.phase !== "over")) {
      return [L.stopped, "", s.resume ? command(s.resume) : ""];
    }
    if (s.phase === "waiting") {
      const here = s.joined.length ? fmt(L.joined, { players: s.joined.join(", ") }) : "";
      const missing = s.not_joined.length ? fmt(L.not_joined, { players: s.not_joined.join(", ") }) : "";
      return [L.waiting, "", [here, missing].filter(Boolean).join(" · ")];
    }
    const dealWon = result && (result.yours ? fmt(L.deal_over_you, { deal: result.deal }) : fmt(L.deal_over, { deal: result.deal, winner: result.winner }));
    if (s.phase === "over") return [gameWon(s) || L.final, "", dealWon || ""];
    if (s.phase === "deal_over" && result) return [dealWon, "", L.next_deal];
    if (s.paused) return [L.paused, "", s.pause_reason || L.pause_key];
    if (!s.turn) return ["", "", ""];
    if (s.turn.yours) return [L.your_turn, L.say + " " + s.say, ""];
    return [fmt(L.their_turn, { player: s.turn.player }), "", s.hint];
  }

  function gameWon(s) {
    // Who is first when the series is over: the headline, above the last deal's result.
    const first = s.standings.filter((p) => p.place === 1);
    if (first.length === 1) return first[0].seat === s.seat ? L.game_won_you : fmt(L.game_won, { winner: first[0].name });
    return first.length ? fmt(L.game_shared, { players: first.map((p) => p.name).join(", ") }) : "";
  }

  function command(text) {
    // How the series goes on, with the command kept on one line.
    const [before, after] = L.resume.split("{command}");
    const code = element("code", "command", text);
    return [before, code, after];
  }

  function renderBanner(s) {
    const [whose, line, hint] = banner(s);
    const mine = !!(s.turn && s.turn.yours && s.phase === "playing");
    $("banner").classList.toggle("mine", mine);
    $("whose").textContent = whose;
    $("line").textContent = line;
    $("hint").replaceChildren(...(Array.isArray(hint) ? hint : [hint]));
    if (mine && !wasMine && navigator.vibrate) navigator.vibrate([150, 80, 150]);
    wasMine = mine;
  }

  function renderTable(s) {
    // Not at the player's own lead: no rank is open, and the room goes to the hand.
    const playing = s.phase === "playing" && !s.legal.includes("lead");
    $("table").hidden = !playing;
    if (!playing) return;
    $("rank").textContent = s.open_rank ? fmt(L.open_rank, { ranks: L.ranks[s.open_rank] }) : L.any_rank;
    const shown = s.open_rank ? Math.min(s.in_quartet, 4) : 0;
    const marks = [];
    for (let i = 0; i < 4; i++) marks.push(i < shown ? s.open_rank : "_");
    $("progress").textContent = marks.join(" ");
    $("finished").textContent = fmt(L.finished, { ranks: s.finished.length ? s.finished.join(" ") : "—" });
  }

  function card(code) {
    const rank = code.slice(0, -1);
    const suit = code.slice(-1);
    const face = element("div", "card" + (suit === "H" || suit === "D" ? " red" : ""), "");
    face.setAttribute("aria-label", code);
    const mark = SUITS[suit] || suit;
    face.append(element("span", rank.length > 1 ? "r wide" : "r", rank), element("span", "s", mark), element("span", "pip", mark));
    return face;
  }

  function renderHand(s) {
    $("hand-title").textContent = L.hand;
    $("handbox").hidden = s.phase === "waiting";
    const hand = $("hand");
    hand.replaceChildren();
    if (s.hand === null) {
      hand.append(element("p", "empty", L.no_hand));
      return;
    }
    if (s.hand.length === 0) {
      hand.append(element("p", "empty", L.no_cards));
      return;
    }
    let group = null;
    let groupRank = null;
    for (const code of s.hand) {
      const rank = code.slice(0, -1);
      if (rank !== groupRank) {
        group = element("div", "group" + (rank === s.open_rank && s.phase === "playing" ? " due" : ""), "");
        group.dataset.rank = rank;
        hand.append(group);
        groupRank = rank;
      }
      group.append(card(code));
    }
  }

  function renderPlayers(s) {
    $("players-title").textContent = L.players;
    const waiting = s.phase === "waiting";
    $("col-cards").textContent = waiting ? "" : L.cards;
    $("col-total").textContent = waiting ? "" : L.total;
    const body = document.querySelector("#players tbody");
    body.replaceChildren();
    renderCounts(s);
    s.players.forEach((p, seat) => {
      const row = document.createElement("tr");
      if (s.turn && s.turn.seat === seat && s.phase === "playing") row.className = "to-move";
      if (seat === s.seat) row.classList.add("me");
      const name = element("td", "", p.name);
      if (p.dealer) name.append(element("span", "tag", L.dealer));
      if (p.bot) name.append(element("span", "tag", L.bot));
      row.append(name, element("td", "", waiting ? "" : String(p.cards)), element("td", "", waiting ? "" : String(p.total)));
      body.append(row);
    });
  }

  function renderCounts(s) {
    // Every player's card count beside the hand's title, the player on turn marked: always in view.
    const counts = $("counts");
    counts.replaceChildren();
    if (s.phase === "waiting") return;
    counts.append(L.cards + " ");
    s.players.forEach((p, seat) => {
      const onTurn = s.turn && s.turn.seat === seat && s.phase === "playing";
      const entry = element("span", onTurn ? "to-move" : (seat === s.seat ? "me" : ""), p.name + " " + p.cards);
      counts.append(...(seat ? [" · ", entry] : [entry]));
    });
  }

  function renderResult(s) {
    // From the end of a deal until the next one begins, and at the end of the series.
    const result = s.last_deal;
    const show = s.phase === "over" || (s.phase === "deal_over" && !!result);
    $("result").hidden = !show;
    if (!show) return;
    const payments = $("payments");
    payments.replaceChildren();
    if (result) {
      for (const p of [...result.payments].sort((a, b) => b.amount - a.amount)) {  // the winner's take first
        if (p.amount === 0) continue;
        const paid = p.amount < 0;
        const label = p.yours ? (paid ? L.you_pay : L.you_take) : (paid ? L.pays : L.takes);
        payments.append(element("li", "", fmt(label, { player: p.name, amount: Math.abs(p.amount) })));
      }
    }
    $("standings-title").textContent = s.phase === "over" ? L.final : L.standings;
    const standings = $("standings");
    standings.replaceChildren();
    for (const p of s.standings) {
      const item = element("li", p.name === s.player ? "me" : "", p.name + " " + p.total);
      item.value = p.place;
      standings.append(item);
    }
  }

  function renderActions(s) {
    const playing = s.phase === "playing" && !!s.turn && closed === null;
    $("actions").hidden = !playing;
    if (!playing) return;
    const mine = s.turn.yours;
    const lead = mine && s.legal.includes("lead");
    $("actions").classList.toggle("idle", !mine);
    $("actions").classList.toggle("lead", lead);
    $("pass").textContent = L.pass;
    $("play").textContent = L.play;
    // The Play button's primary look goes to the move the rules allow (Pass when passing is all there is).
    const primary = s.legal.includes("play") ? "play" : (s.legal.includes("pass") ? "pass" : null);
    $("play").classList.toggle("primary", primary === "play");
    $("pass").classList.toggle("primary", primary === "pass");
    // At a lead the rank buttons sit above the place where Pass and Play were, which holds a note:
    // a second tap on Play that ends a quartet cannot land on a rank.
    $("buttons").hidden = lead;
    $("lead-note").hidden = !lead;
    $("lead-note").textContent = s.paused ? "" : L.lead;  // paused, the rank buttons wait too
    const leads = $("leads");
    if (!lead) {
      leads.replaceChildren();
      leadsFor = null;
    } else if (leadsFor !== s.turn.id) {
      leadsFor = s.turn.id;
      leads.replaceChildren();
      for (const rank of s.leads) {
        const button = element("button", "", rank);
        button.type = "button";
        button.disabled = true;
        button.setAttribute("aria-label", L.lead + " " + L.ranks[rank]);
        button.addEventListener("click", () => tap("lead", rank));
        leads.append(button);
      }
    }
    refreshButtons();
  }

  // For mic.js: the state shown, and the socket (text or binary).
  window.voiceEarl = {
    state: () => state,
    send: (data) => {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(data);
      return true;
    },
  };

  connect();
})();

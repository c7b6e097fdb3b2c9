// voice-earl phone page: shows this player's view and sends their taps. Served by the laptop; no CDN.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent);
  const $ = (id) => document.getElementById(id);
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (all, key) => (key in values ? String(values[key]) : all));

  function element(name, className, text) {
    const node = document.createElement(name);
    if (className) node.className = className;
    node.textContent = text;
    return node;
  }

  let state = null;
  let socket = null;
  let timer = null;
  let retry = 500;
  let wasMine = false;
  let dismissed = null;
  let noticeTimer = null;

  // -- the connection: reconnects by itself after sleep, a lost Wi-Fi or a reload

  function connect() {
    if (socket !== null) return;
    clearTimeout(timer);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(scheme + "//" + location.host + L.base + "/ws");
    socket = ws;
    ws.onopen = () => { retry = 500; online(true); };
    ws.onmessage = (event) => receive(JSON.parse(event.data));
    ws.onclose = () => {
      if (socket === ws) socket = null;
      online(false);
      timer = setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    };
  }

  function online(on) {
    $("link").classList.toggle("on", on);
    $("offline").hidden = on;
    $("offline").textContent = L.offline;
  }

  document.addEventListener("visibilitychange", () => { if (!document.hidden) connect(); });
  window.addEventListener("online", connect);

  function receive(message) {
    if (message.type === "state") {
      state = message.state;
      render();
    } else if (message.type === "refused") {
      notice(message.reason);
      enable(true);
    } else if (message.type === "ignored" || message.type === "error") {
      enable(true);
    } else {
      document.dispatchEvent(new CustomEvent("voice-earl:message", { detail: message }));  // mic.js
    }
  }

  // -- taps

  function tap(action, rank) {
    if (!state || !state.turn || !state.turn.id || !socket || socket.readyState !== WebSocket.OPEN) return;
    const message = { type: "tap", turn: state.turn.id, action: action };
    if (rank) message.rank = rank;
    socket.send(JSON.stringify(message));
    if (state.turn.yours) enable(false);  // until the game answers: one tap, one move
  }

  function enable(on) {
    document.querySelectorAll("#actions button").forEach((b) => { b.disabled = !on; });
  }

  function notice(text) {
    const box = $("notice");
    box.textContent = text;
    box.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => { box.hidden = true; }, 5000);
  }

  $("pass").addEventListener("click", () => tap("pass"));
  $("play").addEventListener("click", () => tap("play"));
  $("result-ok").addEventListener("click", () => {
    dismissed = state && state.last_deal ? state.last_deal.deal : null;
    $("result").hidden = true;
  });

  // -- drawing

  function render() {
    const s = state;
    $("deal").textContent = s.deal ? (s.deals ? fmt(L.deal_of, { deal: s.deal, deals: s.deals }) : fmt(L.deal, { deal: s.deal })) : "";
    renderBanner(s);
    renderTable(s);
    renderHand(s);
    renderPlayers(s);
    renderResult(s);
    renderActions(s);
    $("last").textContent = s.last || "";
    document.dispatchEvent(new CustomEvent("voice-earl:state", { detail: s }));  // mic.js
  }

  function renderBanner(s) {
    const mine = !!(s.turn && s.turn.yours);
    $("banner").classList.toggle("mine", mine);
    if (s.phase === "waiting") {
      $("whose").textContent = L.waiting;
    } else if (s.phase === "over") {
      $("whose").textContent = L.final;
    } else if (s.paused) {
      $("whose").textContent = L.paused;
    } else if (s.turn) {
      $("whose").textContent = mine ? L.your_turn : fmt(L.their_turn, { player: s.turn.player });
    }
    $("line").textContent = mine ? (L.say + " " + s.line) : "";
    $("hint").textContent = s.turn && s.phase === "playing" ? s.hint : "";
    if (mine && !wasMine && navigator.vibrate) navigator.vibrate([150, 80, 150]);
    wasMine = mine;
  }

  function renderTable(s) {
    const playing = s.phase === "playing";
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
    face.append(element("span", "r", rank), element("span", "s", mark), element("span", "pip", mark));
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
    $("col-cards").textContent = L.cards;
    $("col-total").textContent = L.total;
    const body = document.querySelector("#players tbody");
    body.replaceChildren();
    s.players.forEach((p, seat) => {
      const row = document.createElement("tr");
      if (s.turn && s.turn.seat === seat && s.phase === "playing") row.className = "to-move";
      if (seat === s.seat) row.classList.add("me");
      const name = element("td", "", p.name);
      if (p.dealer) name.append(element("span", "tag", L.dealer));
      if (p.bot) name.append(element("span", "tag", L.bot));
      const waiting = s.phase === "waiting";
      row.append(name, element("td", "", waiting ? "" : String(p.cards)), element("td", "", waiting ? "" : String(p.total)));
      body.append(row);
    });
  }

  function renderResult(s) {
    const result = s.last_deal;
    const fresh = result && s.phase === "playing" && result.deal === s.deal - 1 && s.deal_moves < s.players.length;
    const show = (s.phase === "over") || (fresh && dismissed !== result.deal);
    $("result").hidden = !show;
    if (!show) return;
    $("result-title").textContent = result ? fmt(L.deal_over, { deal: result.deal, winner: result.winner }) : "";
    const payments = $("payments");
    payments.replaceChildren();
    if (result) {
      for (const p of result.payments) {
        if (p.amount === 0) continue;
        const text = p.amount < 0 ? fmt(L.pays, { player: p.name, amount: -p.amount }) : fmt(L.takes, { player: p.name, amount: p.amount });
        payments.append(element("li", "", text));
      }
    }
    $("standings-title").textContent = s.phase === "over" ? L.final : L.standings;
    const standings = $("standings");
    standings.replaceChildren();
    for (const p of s.standings) {
      const item = element("li", "", p.name + " " + p.total);
      item.value = p.place;
      standings.append(item);
    }
    $("result-ok").textContent = L.ok;
    $("result-ok").hidden = s.phase === "over";
  }

  function renderActions(s) {
    const playing = s.phase === "playing" && !!s.turn;
    $("actions").hidden = !playing;
    if (!playing) return;
    const mine = s.turn.yours;
    $("actions").classList.toggle("idle", !mine);
    const lead = s.due && s.due.rank === null;
    $("pass").textContent = L.pass;
    $("play").textContent = L.play;
    $("pass").hidden = mine && lead;
    $("play").hidden = mine && lead;
    const leads = $("leads");
    leads.replaceChildren();
    if (mine && lead) {
      leads.append(element("p", "leads-title", L.lead));
      for (const rank of s.leads) {
        const button = element("button", "", rank);
        button.type = "button";
        button.setAttribute("aria-label", L.lead + " " + L.ranks[rank]);
        button.addEventListener("click", () => tap("lead", rank));
        leads.append(button);
      }
    }
    enable(true);
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

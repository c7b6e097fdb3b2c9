// voice-earl phone page, the microphone (--phone-mics): hold to speak, release, and see the verdict.
// The microphone is asked for on the first hold, not before; what is held goes to the laptop as
// 16 kHz mono 16-bit PCM (resampled on the phone, in mic-worklet.js) over the page's own socket.
// Served by the laptop; no CDN.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent);
  const M = L.mic;
  const api = window.voiceEarl; // the page's socket and state (phone.js)
  const RELEASE_WAIT_MS = 1000; // the worklet's last frames: a release is sent at the latest after this
  const SHOWN_MS = 8000; // how long a verdict or a refusal stays on the phone

  let state = api.state();
  let capture = null; // {context, stream, node} once the microphone is open
  let opening = null; // a promise while the browser asks for the microphone
  let pressed = false;
  let sending = null; // the turn whose audio is being sent
  let releasing = null; // {turn, timer} while the worklet's last frames come
  let judging = null; // the turn whose verdict is awaited
  let again = null; // a verdict that asked to say it again, while its turn may still be open
  let shownTimer = null;
  let unavailable = null; // why this phone cannot listen, until a hold opens the microphone after all

  // -- the button above Pass and Play (beside the note at a lead), and its line at the top of the buttons

  const box = document.createElement("div");
  box.className = "mic";
  const button = document.createElement("button");
  button.type = "button";
  button.id = "hold";
  button.textContent = M.hold;
  const status = document.createElement("p");
  status.id = "mic-status";
  status.className = "mic-status";
  status.setAttribute("role", "status");
  box.append(button);
  const footer = document.getElementById("actions");
  footer.insertBefore(box, footer.querySelector(".buttons"));
  footer.insertBefore(status, footer.firstChild);
  document.body.classList.add("mics");

  function show(text, kind, lasting) {
    status.textContent = text || "";
    status.className = "mic-status" + (kind ? " " + kind : "");
    clearTimeout(shownTimer);
    if (!lasting) shownTimer = setTimeout(() => { if (!sending && !judging) rest(); }, SHOWN_MS);
  }

  function rest() {
    // Between messages: nothing, or, while the phone cannot listen, what to do instead.
    if (unavailable) show(M.instead, "off", true);
    else show("", "", true);
  }

  function cannotListen(why) {
    // The first time, one short line; a hold after that says why (and tries again first).
    const before = unavailable;
    unavailable = why;
    button.classList.add("off");
    button.setAttribute("aria-disabled", "true");
    button.textContent = M.off;
    if (before) show(why, "bad");
    else rest();
  }

  function canListen() {
    if (!unavailable) return;
    unavailable = null;
    button.classList.remove("off");
    button.removeAttribute("aria-disabled");
    button.textContent = M.hold;
    rest();
  }

  function render() {
    const micOnly = !!state && state.virtual === false;
    document.body.classList.toggle("mic-only", micOnly);
    // A real pack's phone is a microphone and a Pass button: no rank to tap at a lead, it is said.
    if (micOnly) document.getElementById("lead-note").textContent = L.lead_said;
    const mine = !!(state && state.turn && state.turn.yours);
    box.classList.toggle("idle", !mine);
    if (judging && (!state || !state.turn || state.turn.id !== judging)) judging = null; // the turn moved on
    if (again && movedOn(again.turn)) showMoved(again);
  }

  function movedOn(turn) {
    return !state || !state.turn || state.turn.id !== turn;
  }

  document.addEventListener("voice-earl:state", (event) => {
    state = event.detail;
    render();
  });

  document.addEventListener("voice-earl:message", (event) => {
    const message = event.detail;
    if (message.type === "listening") {
      if (sending === message.turn) show(M.listening, "on", true);
    } else if (message.type === "heard") {
      judging = null;
      showVerdict(message);
    } else if (message.type === "unheard" || message.type === "cut-off") {
      if (sending === message.turn || message.type === "cut-off") stopSending();
      judging = null;
      again = null;
      show(message.reason, "bad");
    }
  });

  function showVerdict(message) {
    again = null;
    if (message.verdict === "correct") show("✓ " + message.line, "ok");
    else if (message.verdict === "pass") show("✓ " + M.passed, "ok");
    else if (movedOn(message.turn)) showMoved(message);
    else {
      again = message;
      show(M.again + (message.why ? " " + message.why : ""), "bad");
    }
  }

  // The turn moved on after a verdict that was not the line: a wrong line or rank still plays the card
  // (or, where a bungled chant is a forfeit, the card goes back and the turn passes), or the player
  // tapped instead. Either way there is nothing to say again.
  function showMoved(message) {
    again = null;
    const label = M.verdicts[message.verdict];
    if (label) show(label + (message.why ? ": " + message.why : ""), "bad");
    else rest();
  }

  // -- holding: pointer (finger or mouse) or keyboard

  button.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    if (button.setPointerCapture) button.setPointerCapture(event.pointerId);
    press();
  });
  for (const name of ["pointerup", "pointercancel", "lostpointercapture"]) button.addEventListener(name, release);
  button.addEventListener("keydown", (event) => {
    if ((event.key === " " || event.key === "Enter") && !event.repeat) {
      event.preventDefault();
      press();
    }
  });
  button.addEventListener("keyup", (event) => {
    if (event.key === " " || event.key === "Enter") release();
  });
  button.addEventListener("contextmenu", (event) => event.preventDefault()); // a long press is a hold

  async function press() {
    if (pressed) return;
    pressed = true;
    if (!capture) {
      show(M.asking, "", true);
      if (!(await openMicrophone())) {
        pressed = false;
        return;
      }
      canListen(); // allowed after all, in the browser's settings
      if (!pressed) {
        show(M.ready, "");  // released while the browser asked: the next hold is heard
        return;
      }
    }
    startHold();
  }

  function startHold() {
    const turn = state && state.turn ? state.turn.id : null;
    if (!turn) {
      show(M.no_turn, "bad");
      return;
    }
    if (releasing) finishRelease();
    if (!api.send(JSON.stringify({ type: "hold", turn: turn }))) {
      show(L.offline, "bad");
      return;
    }
    sending = turn;
    judging = null;
    again = null;
    button.classList.add("on");
    show(M.listening, "on", true);
    if (capture.context.state === "suspended") capture.context.resume();
    capture.node.port.postMessage({ cmd: "start" });
  }

  function release() {
    if (!pressed) return;
    pressed = false;
    button.classList.remove("on");
    if (!sending || !capture) return;
    releasing = { turn: sending, timer: setTimeout(finishRelease, RELEASE_WAIT_MS) };
    capture.node.port.postMessage({ cmd: "stop" }); // its last frames, then "done"
  }

  function finishRelease() {
    if (!releasing) return;
    clearTimeout(releasing.timer);
    const turn = releasing.turn;
    releasing = null;
    if (sending !== turn) return; // refused or cut off meanwhile: nothing to judge
    sending = null;
    if (api.send(JSON.stringify({ type: "release", turn: turn }))) {
      judging = turn;
      show(M.judging, "", true);
    }
  }

  function stopSending() {
    sending = null;
    button.classList.remove("on");
  }

  function frame(data) {
    if (data instanceof ArrayBuffer) {
      if (sending) api.send(data);
    } else if (data && data.done) {
      finishRelease();
    }
  }

  // -- the microphone: asked for on the first hold; closed while the page is hidden

  function openMicrophone() {
    if (!opening) opening = open().finally(() => { opening = null; });
    return opening;
  }

  async function open() {
    if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      cannotListen(M.insecure);
      return false;
    }
    if (!window.AudioWorkletNode) {
      cannotListen(M.unsupported);
      return false;
    }
    let stream = null;
    let context = null;
    try {
      context = new AudioContext(); // made during the press, so that the browser lets it play
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
      });
      await context.audioWorklet.addModule(M.worklet);
      const source = context.createMediaStreamSource(stream);
      const node = new AudioWorkletNode(context, "voice-earl-mic", { numberOfInputs: 1, numberOfOutputs: 1 });
      const mute = context.createGain();
      mute.gain.value = 0; // the worklet is pulled through the speaker's path, which hears nothing
      source.connect(node).connect(mute).connect(context.destination);
      node.port.onmessage = (event) => frame(event.data);
      for (const track of stream.getAudioTracks()) track.addEventListener("ended", closeMicrophone);
      capture = { context: context, stream: stream, node: node };
      if (context.state === "suspended") await context.resume();
      return true;
    } catch (error) {
      if (stream) stream.getTracks().forEach((track) => track.stop());
      if (context) context.close();
      const name = error && error.name;
      if (name === "NotAllowedError" || name === "SecurityError") cannotListen(M.refused);
      else if (name === "NotFoundError" || name === "NotReadableError" || name === "OverconstrainedError") {
        cannotListen(M.missing);
      } else cannotListen(M.failed + (name ? " (" + name + ")" : ""));
      return false;
    }
  }

  function closeMicrophone() {
    if (pressed) release();
    finishRelease();
    if (!capture) return;
    capture.stream.getTracks().forEach((track) => track.stop());
    capture.context.close();
    capture = null;
  }

  document.addEventListener("visibilitychange", () => { if (document.hidden) closeMicrophone(); });
  render();
})();

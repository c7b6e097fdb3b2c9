// voice-earl phone page, the microphone's worklet: what the phone hears while Hold to speak is held,
// resampled to 16 kHz mono 16-bit little-endian PCM (a windowed-sinc low-pass, so that nothing above
// 8 kHz folds back into the speech) and posted in frames of 40 ms. Served by the laptop; no CDN.
"use strict";

const OUT_RATE = 16000;
const FRAME_SAMPLES = 640; // 40 ms: the server takes at most 100 ms a message
const HALF = 24; // the filter reaches this many input samples either side
const PHASES = 128; // fractional positions the filter is tabled for

function kernel(cutoff) {
  // cutoff: of the input's Nyquist frequency. One row of 2*HALF taps per phase, Blackman window.
  const table = new Float32Array(PHASES * 2 * HALF);
  for (let p = 0; p < PHASES; p++) {
    const frac = p / PHASES;
    let sum = 0;
    for (let k = 0; k < 2 * HALF; k++) {
      const x = k - HALF + 1 - frac; // distance from the output instant, in input samples
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * cutoff * x) / (Math.PI * cutoff * x);
      const w = 0.42 + 0.5 * Math.cos((Math.PI * x) / HALF) + 0.08 * Math.cos((2 * Math.PI * x) / HALF);
      const tap = Math.abs(x) < HALF ? cutoff * sinc * w : 0;
      table[p * 2 * HALF + k] = tap;
      sum += tap;
    }
    for (let k = 0; k < 2 * HALF; k++) table[p * 2 * HALF + k] /= sum || 1; // unity gain at 0 Hz
  }
  return table;
}

class Resampler {
  constructor(inRate) {
    this.step = inRate / OUT_RATE;
    this.same = inRate === OUT_RATE;
    this.table = this.same ? null : kernel(Math.min(1, OUT_RATE / inRate) * 0.9);
    this.reset();
  }

  reset() {
    this.buffer = new Float32Array(HALF); // quiet before the first sample, for the filter's reach
    this.used = HALF; // how much of buffer holds samples
    this.at = HALF - 1; // the next output instant, in buffer samples
  }

  push(samples, emit) {
    if (this.same) {
      for (let i = 0; i < samples.length; i++) emit(samples[i]);
      return;
    }
    if (this.used + samples.length > this.buffer.length) {
      const grown = new Float32Array(Math.max(2 * this.buffer.length, this.used + samples.length));
      grown.set(this.buffer.subarray(0, this.used));
      this.buffer = grown;
    }
    this.buffer.set(samples, this.used);
    this.used += samples.length;
    const row = 2 * HALF;
    while (this.at + HALF < this.used) {
      const base = Math.floor(this.at);
      const phase = Math.min(PHASES - 1, Math.round((this.at - base) * PHASES));
      const taps = phase * row;
      const first = base - HALF + 1;
      let value = 0;
      for (let k = 0; k < row; k++) value += this.buffer[first + k] * this.table[taps + k];
      emit(value);
      this.at += this.step;
    }
    const drop = Math.floor(this.at) - HALF + 1; // samples no later output reaches
    if (drop > 0) {
      this.buffer.copyWithin(0, drop, this.used);
      this.used -= drop;
      this.at -= drop;
    }
  }

  flush(emit) {
    if (!this.same) this.push(new Float32Array(HALF), emit);
  }
}

class VoiceEarlMic extends AudioWorkletProcessor {
  constructor() {
    super();
    this.resampler = new Resampler(sampleRate);
    this.recording = false;
    this.fresh();
    this.emit = (value) => {
      const clipped = Math.max(-1, Math.min(1, value));
      this.view.setInt16(2 * this.filled, Math.round(clipped * 32767), true);
      this.filled += 1;
      if (this.filled === FRAME_SAMPLES) this.send();
    };
    this.port.onmessage = (event) => {
      if (event.data.cmd === "start") {
        this.resampler.reset();
        this.fresh();
        this.recording = true;
      } else if (event.data.cmd === "stop") {
        if (this.recording) {
          this.resampler.flush(this.emit);
          if (this.filled > 0) this.send();
        }
        this.recording = false;
        this.port.postMessage({ done: true });
      }
    };
  }

  fresh() {
    this.frame = new ArrayBuffer(2 * FRAME_SAMPLES);
    this.view = new DataView(this.frame);
    this.filled = 0;
  }

  send() {
    const whole = this.filled === FRAME_SAMPLES ? this.frame : this.frame.slice(0, 2 * this.filled);
    this.port.postMessage(whole, [whole]);
    this.fresh();
  }

  process(inputs) {
    const channels = inputs[0];
    if (!this.recording || !channels || channels.length === 0) return true;
    let mono = channels[0];
    if (channels.length > 1) {
      mono = new Float32Array(channels[0].length);
      for (const channel of channels) for (let i = 0; i < mono.length; i++) mono[i] += channel[i] / channels.length;
    }
    this.resampler.push(mono, this.emit);
    return true;
  }
}

registerProcessor("voice-earl-mic", VoiceEarlMic);

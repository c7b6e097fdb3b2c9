"""Whisper tiny.en's decoder in torch (transformers' ``WhisperDecoder``), loaded from and written back
to CTranslate2's variables, and the judge's own score of a text given the audio.

CTranslate2 fuses the self-attention's query, key and value into one matrix and the cross-attention's
key and value into another, with a zero key bias (Whisper's keys have none); the output projection is
the token embeddings. The judge's ``align`` takes its softmax over the text tokens alone (ids below
``<|endoftext|>``), and so does :func:`token_logprobs`. Needs the ``train`` extra.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperDecoder

from voice_earl.listening.models.ct2_file import ModelFile, Variable

FLOAT16 = 4  # CTranslate2's DataType id
TEXT_TOKENS = 50256  # ids below <|endoftext|>: the tokens the judge's softmax is over


def _array(variable: Variable) -> np.ndarray:
    dtype = {FLOAT16: np.float16, 0: np.float32}[variable.dtype]
    return np.frombuffer(variable.data, dtype=dtype).reshape(variable.shape).astype(np.float32)


def _layers(model: ModelFile) -> int:
    return len({name.split("/")[1] for name in model.variables if re.match(r"decoder/layer_\d+/", name)})


def decoder_from(model: ModelFile) -> WhisperDecoder:
    """The decoder of a CTranslate2 Whisper model, in torch, in evaluation mode."""
    embeddings = _array(model.variables["decoder/embeddings/weight"])
    positions = _array(model.variables["decoder/position_encodings/encodings"])
    width = embeddings.shape[1]
    heads = int(np.frombuffer(model.variables["decoder/num_heads"].data, dtype=np.int16)[0])
    config = WhisperConfig(
        vocab_size=embeddings.shape[0],
        d_model=width,
        decoder_layers=_layers(model),
        decoder_attention_heads=heads,
        decoder_ffn_dim=model.variables["decoder/layer_0/ffn/linear_0/weight"].shape[0],
        max_target_positions=positions.shape[0],
        activation_function="gelu",
        scale_embedding=False,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
    )
    config._attn_implementation = "eager"
    decoder = WhisperDecoder(config)
    state = {"embed_tokens.weight": embeddings, "embed_positions.weight": positions}
    state |= _norm(model, "decoder/layer_norm", "layer_norm")
    for layer in range(config.decoder_layers):
        state |= _layer_state(model, f"decoder/layer_{layer}", f"layers.{layer}", width)
    decoder.load_state_dict({name: torch.from_numpy(value) for name, value in state.items()})
    return decoder.eval()


def _norm(model: ModelFile, ct2: str, torch_name: str) -> dict[str, np.ndarray]:
    return {
        f"{torch_name}.weight": _array(model.variables[f"{ct2}/gamma"]),
        f"{torch_name}.bias": _array(model.variables[f"{ct2}/beta"]),
    }


def _linear(model: ModelFile, ct2: str, torch_name: str) -> dict[str, np.ndarray]:
    return {
        f"{torch_name}.weight": _array(model.variables[f"{ct2}/weight"]),
        f"{torch_name}.bias": _array(model.variables[f"{ct2}/bias"]),
    }


def _split(model: ModelFile, ct2: str, names: Sequence[str], width: int) -> dict[str, np.ndarray]:
    """A fused projection cut into its parts (the key has no bias)."""
    weight, bias = _array(model.variables[f"{ct2}/weight"]), _array(model.variables[f"{ct2}/bias"])
    state = {}
    for index, name in enumerate(names):
        state[f"{name}.weight"] = weight[index * width : (index + 1) * width]
        if not name.endswith("k_proj"):
            state[f"{name}.bias"] = bias[index * width : (index + 1) * width]
    return state


def _layer_state(model: ModelFile, ct2: str, name: str, width: int) -> dict[str, np.ndarray]:
    self_attention, cross = f"{name}.self_attn", f"{name}.encoder_attn"
    return {
        **_norm(model, f"{ct2}/self_attention/layer_norm", f"{name}.self_attn_layer_norm"),
        **_split(model, f"{ct2}/self_attention/linear_0", [f"{self_attention}.{p}_proj" for p in "qkv"], width),
        **_linear(model, f"{ct2}/self_attention/linear_1", f"{self_attention}.out_proj"),
        **_norm(model, f"{ct2}/attention/layer_norm", f"{name}.encoder_attn_layer_norm"),
        **_linear(model, f"{ct2}/attention/linear_0", f"{cross}.q_proj"),
        **_split(model, f"{ct2}/attention/linear_1", [f"{cross}.k_proj", f"{cross}.v_proj"], width),
        **_linear(model, f"{ct2}/attention/linear_2", f"{cross}.out_proj"),
        **_norm(model, f"{ct2}/ffn/layer_norm", f"{name}.final_layer_norm"),
        **_linear(model, f"{ct2}/ffn/linear_0", f"{name}.fc1"),
        **_linear(model, f"{ct2}/ffn/linear_1", f"{name}.fc2"),
    }


def trained_parameters(decoder: WhisperDecoder) -> list[torch.nn.Parameter]:
    """What training changes: the layers and the final norm (not the embeddings, which are also the
    output projection, nor the positions)."""
    for name, parameter in decoder.named_parameters():
        parameter.requires_grad = not name.startswith(("embed_tokens", "embed_positions"))
    return [p for p in decoder.parameters() if p.requires_grad]


def patch_of(decoder: WhisperDecoder, base: ModelFile) -> ModelFile:
    """The CTranslate2 variables training changed, fused and typed as in ``base``: a patch for it."""
    state = {name: value.detach().float().numpy() for name, value in decoder.state_dict().items()}
    width = base.variables["decoder/embeddings/weight"].shape[1]
    variables: dict[str, Variable] = {}

    def put(ct2: str, value: np.ndarray) -> None:
        old = base.variables[ct2]
        assert old.shape == value.shape, (ct2, old.shape, value.shape)
        variables[ct2] = Variable(old.shape, old.dtype, np.ascontiguousarray(value, dtype=np.float16).tobytes())

    def fused(ct2: str, names: Sequence[str]) -> None:
        put(f"{ct2}/weight", np.concatenate([state[f"{n}.weight"] for n in names]))
        zero = np.zeros(width, dtype=np.float32)
        put(f"{ct2}/bias", np.concatenate([state.get(f"{n}.bias", zero) for n in names]))

    put("decoder/layer_norm/gamma", state["layer_norm.weight"])
    put("decoder/layer_norm/beta", state["layer_norm.bias"])
    for layer in range(_layers(base)):
        ct2, name = f"decoder/layer_{layer}", f"layers.{layer}"
        for part, norm in (
            ("self_attention", "self_attn_layer_norm"),
            ("attention", "encoder_attn_layer_norm"),
            ("ffn", "final_layer_norm"),
        ):
            put(f"{ct2}/{part}/layer_norm/gamma", state[f"{name}.{norm}.weight"])
            put(f"{ct2}/{part}/layer_norm/beta", state[f"{name}.{norm}.bias"])
        fused(f"{ct2}/self_attention/linear_0", [f"{name}.self_attn.{p}_proj" for p in "qkv"])
        fused(f"{ct2}/attention/linear_1", [f"{name}.encoder_attn.k_proj", f"{name}.encoder_attn.v_proj"])
        for ct2_part, torch_part in (
            ("self_attention/linear_1", "self_attn.out_proj"),
            ("attention/linear_0", "encoder_attn.q_proj"),
            ("attention/linear_2", "encoder_attn.out_proj"),
            ("ffn/linear_0", "fc1"),
            ("ffn/linear_1", "fc2"),
        ):
            put(f"{ct2}/{ct2_part}/weight", state[f"{name}.{torch_part}.weight"])
            put(f"{ct2}/{ct2_part}/bias", state[f"{name}.{torch_part}.bias"])
    return ModelFile(base.version, base.spec, base.revision, variables, {})


def token_logprobs(
    decoder: WhisperDecoder, encoded: torch.Tensor, tokens: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Each next token's log-probability (softmax over the text tokens), for ``tokens`` (batch, length:
    the prompt and then the text) given ``encoded`` (batch, steps, width): (batch, length - 1). CTranslate2's
    ``align`` puts ``<|notimestamps|>`` after the start it is given: so does the judge's prompt here.

    Only the tokens ``mask`` marks are scored (the rest are zero): the softmax over 50,256 tokens is
    most of the work."""
    hidden = decoder(input_ids=tokens, encoder_hidden_states=encoded).last_hidden_state[:, :-1]
    scored = mask.bool()
    logits = hidden[scored] @ decoder.embed_tokens.weight[:TEXT_TOKENS].T
    following = tokens[:, 1:][scored].clamp(max=TEXT_TOKENS - 1)
    picked = torch.log_softmax(logits, dim=-1).gather(-1, following.unsqueeze(-1)).squeeze(-1)
    return torch.zeros(mask.shape, dtype=picked.dtype).masked_scatter(scored, picked)


def padded(sequences: Sequence[Sequence[int]], prompt: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Token sequences (each ``prompt`` tokens, then the text) padded to one length (the decoder is
    causal, so padding at the end changes nothing before it), and the mask of the text's tokens among
    :func:`token_logprobs`'s."""
    longest = max(len(s) for s in sequences)
    tokens = torch.zeros((len(sequences), longest), dtype=torch.long)
    mask = torch.zeros((len(sequences), longest - 1))
    for row, sequence in enumerate(sequences):
        tokens[row, : len(sequence)] = torch.tensor(list(sequence))
        mask[row, prompt - 1 : len(sequence) - 1] = 1.0
    return tokens, mask


def as_tensor(encoded: Any) -> torch.Tensor:
    return torch.from_numpy(np.asarray(encoded, dtype=np.float32))

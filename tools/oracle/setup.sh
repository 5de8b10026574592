#!/usr/bin/env bash
# The torch-free venv in which `make oracle` runs vLLM's and SGLang's tool-call parsers.
# vllm and xgrammar go in with --no-deps, the light packages their parser modules import
# with pip; SGLang's function_call package is read from its wheel's python files.
# Idempotent (a marker file per version pair); ORACLE_VENV overrides the location.
# Prints the venv path on stdout.
set -euo pipefail
VENV="${ORACLE_VENV:-/tmp/vllm-oracle/venv}"
VLLM="${ORACLE_VLLM:-0.33.0}"
SGLANG="${ORACLE_SGLANG:-0.5.23}"
READY="$VENV/.oracle-ready-$VLLM-sglang-$SGLANG"
if [ -f "$READY" ]; then echo "$VENV"; exit 0; fi
python3 -m venv "$VENV"
pip_() { "$VENV/bin/pip" install -q --disable-pip-version-check "$@" >&2; }
pip_ --no-deps "vllm==$VLLM" "xgrammar==0.2.8" "apache-tvm-ffi>=0.1.11"
pip_ regex pydantic openai partial-json-parser numpy packaging cbor2 psutil pyzmq urllib3 \
  fastapi pillow pybase64 aiohttp requests cachetools prometheus_client openai-harmony \
  msgspec cloudpickle uvloop py-cpuinfo ijson mistral_common orjson IPython \
  "transformers>=5.16.1,<5.21.0"
# openai_harmony fetches o200k_base over the network and checks its SHA-256: a byte-level
# stand-in vocabulary and a copy of the package expecting that file's hash instead.
"$VENV/bin/python" - "$VENV/oracle_stubs" <<'PY'
import base64, glob, hashlib, os, shutil, sys
import openai_harmony
root = sys.argv[1]
os.makedirs(os.path.join(root, "harmony_vocab"), exist_ok=True)
vocab = os.path.join(root, "harmony_vocab", "o200k_base.tiktoken")
with open(vocab, "w") as f:
    f.writelines(f"{base64.b64encode(bytes([i])).decode()} {i}\n" for i in range(256))
pkg = os.path.join(root, "openai_harmony")
shutil.rmtree(pkg, ignore_errors=True)
shutil.copytree(os.path.dirname(openai_harmony.__file__), pkg)
lib = glob.glob(os.path.join(pkg, "*.so"))[0]
data = open(lib, "rb").read()
real = b"446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
assert data.count(real) == 1, "openai_harmony changed: the o200k_base hash is not there once"
ours = hashlib.sha256(open(vocab, "rb").read()).hexdigest().encode()
open(lib, "wb").write(data.replace(real, ours))
PY
SRC="$(dirname "$VENV")/sglang_src"
if [ ! -d "$SRC/sglang/srt/function_call" ]; then
  TMP="$(mktemp -d)"
  "$VENV/bin/pip" download -q --disable-pip-version-check --no-deps "sglang==$SGLANG" -d "$TMP" >&2
  "$VENV/bin/python" -c "
import glob, sys, zipfile
z = zipfile.ZipFile(glob.glob(sys.argv[1] + '/sglang-*.whl')[0])
z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith('sglang/') and n.endswith('.py')])
" "$TMP" "$SRC"
  rm -rf "$TMP"
fi
touch "$READY"
echo "$VENV"

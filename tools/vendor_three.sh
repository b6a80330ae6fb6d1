#!/bin/sh
# Vendor three.js into the report's assets: one classic script that defines the global THREE
# with only the classes kanebond's 3D view uses (esbuild bundles and minifies them from npm's
# `three`), its MIT licence in front. Run from the repository root when updating three.js:
#     sh tools/vendor_three.sh 0.187.0
# It needs node and npm (network); the result is committed, so nobody else needs them.
set -eu
VERSION="${1:-0.187.0}"
OUT="$(pwd)/src/kanebond/view/assets"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm init -y >/dev/null
npm install --silent "three@$VERSION" esbuild@0.28.2
cat > entry.js <<'JS'
export {
  BoxGeometry, BufferAttribute, BufferGeometry, CylinderGeometry, DirectionalLight, DoubleSide,
  EdgesGeometry, Float32BufferAttribute, GridHelper, Group, HemisphereLight, Line,
  LineBasicMaterial, LineSegments, Matrix4, Mesh, MeshStandardMaterial, PerspectiveCamera,
  REVISION, Scene, SphereGeometry, TorusGeometry, Vector3, WebGLRenderer
} from "three";
JS
npx esbuild entry.js --bundle --minify --format=iife --global-name=THREE --legal-comments=none \
  --target=es2020 --outfile=three.min.js
{
  printf '/* three.js %s (threejs.org), bundled by tools/vendor_three.sh.\n' "$VERSION"
  sed 's/\*\//* \//g' node_modules/three/LICENSE
  printf '*/\n'
  cat three.min.js
} > "$OUT/three.min.js"
cp node_modules/three/LICENSE "$OUT/three.LICENSE"
echo "wrote $OUT/three.min.js ($(wc -c < "$OUT/three.min.js") bytes)"

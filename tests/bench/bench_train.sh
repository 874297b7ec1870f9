#!/usr/bin/env bash
# Training throughput: `lathe-cli bench train` against PyTorch (torch_train_reference.py, same
# models, synthetic data, SGD, fp32, 64x64, batch 32, 2 threads), measured in the same run,
# alternating so both see the same machine load. Prints one JSON document with both and the ratios.
# Usage: bench_train.sh LATHE_CLI [STEPS]
set -euo pipefail
CLI=$1
STEPS=${2:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
out="{"
first=1
for arch in resnet18 mobilenet_v3_small; do
    lathe=$("$CLI" bench train --arch "$arch" --image-size 64 --batch 32 --steps "$STEPS" --threads 2 --precision fp32)
    torch=$(/usr/bin/python3 "$HERE/torch_train_reference.py" --arch "$arch" --image-size 64 --batch 32 --steps "$STEPS" --threads 2)
    ratio=$(/usr/bin/python3 -c "import json,sys; a=json.loads(sys.argv[1]); b=json.loads(sys.argv[2]); print(round(a['images_per_s']/b['images_per_s'], 3))" "$lathe" "$torch")
    [ $first -eq 1 ] || out+=","
    first=0
    out+="\"$arch\": {\"lathe\": $lathe, \"pytorch\": $torch, \"lathe_over_pytorch\": $ratio}"
done
out+="}"
/usr/bin/python3 -c "import json,sys; print(json.dumps(json.loads(sys.argv[1]), indent=2))" "$out"

#!/usr/bin/env bash
# image.sh is `make image`: an OCI image of `ragchat serve`, built with
# buildah from scratch (no base image is pulled, so none is needed).
#
# The image holds:
#   /ragchat                            a static binary (CGO_ENABLED=0, the
#                                       pure-Go SQLite driver, tzdata
#                                       embedded with -tags timetzdata)
#   /etc/ssl/certs/ca-certificates.crt  the build machine's CA bundle
#   /etc/passwd, /etc/group             the user ragchat, uid/gid 65532
#   /data                               the data directory, a volume
#                                       owned by ragchat (RAGCHAT_DATA_DIR)
#   /tmp                                a world-writable temporary directory
# It runs as 65532:65532 with the entrypoint ["/ragchat", "serve"],
# listens on 0.0.0.0:8080 (exposed) in production (RAGCHAT_ENV=production:
# it refuses to start without a RAGCHAT_JWT_* key, and development sign-in,
# which hands out tokens, is never served to other machines) and carries
# the OCI annotations and labels
# org.opencontainers.image.{title,version,revision,created,source}.
#
# Usage: scripts/image.sh [OCI_DIR]
#   OCI_DIR   the OCI layout directory to write (default bin/image); the
#             image is tagged there as ragchat:<version>. Copy it with
#             skopeo: skopeo copy oci:bin/image:ragchat:<version> \
#             containers-storage:localhost/ragchat:<version> (podman), or
#             docker://<registry>/ragchat:<version>; podman also runs
#             oci:<dir>:<tag> directly
# Environment:
#   IMAGE_VERSION        the version (default: git describe --always --dirty)
#   IMAGE_BUILDAH_ROOT   buildah's storage directory (default: a temporary
#                        one, removed at the end, so the build touches no
#                        system storage)
#   CA_BUNDLE            the CA bundle (default /etc/ssl/certs/ca-certificates.crt)
#
# buildah runs with the vfs storage driver and chroot isolation, which work
# without overlay mounts or user namespaces (nested containers, CI).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'image: %s\n' "$*" >&2; }

command -v buildah >/dev/null || {
	say "ERROR: buildah is not installed (Debian: apt-get install buildah)"
	exit 1
}

out=${1:-bin/image}
# A previous image in the layout is replaced, so that its blobs are the
# image's own (and its size is the image's size).
if [[ -f $out/oci-layout ]]; then
	rm -rf "$out"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=${IMAGE_VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
source_url=$(git remote get-url origin 2>/dev/null || true)
created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
ca=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
[[ -f $ca ]] || {
	say "ERROR: no CA bundle at $ca (Debian: apt-get install ca-certificates)"
	exit 1
}

work=$(mktemp -d)
own_root=""
if [[ -z ${IMAGE_BUILDAH_ROOT:-} ]]; then
	IMAGE_BUILDAH_ROOT=$work/storage
	own_root=1
fi
ctr=""
cleanup() {
	if [[ -n $ctr ]]; then
		bh rm "$ctr" >/dev/null 2>&1 || true
	fi
	if [[ -n $own_root ]]; then
		# vfs layers are plain directories; buildah's own cleanup drops them.
		buildah --root "$IMAGE_BUILDAH_ROOT" --runroot "$work/run" --storage-driver vfs rmi --all >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

bh() { buildah --root "$IMAGE_BUILDAH_ROOT" --runroot "$work/run" --storage-driver vfs "$@"; }

say "go build (static, CGO_ENABLED=0, -tags timetzdata)"
mkdir -p "$work/rootfs/etc/ssl/certs" "$work/data" "$work/tmp"
CGO_ENABLED=0 go build -trimpath -tags timetzdata \
	-ldflags="-s -w -X main.buildVersion=$version" \
	-o "$work/rootfs/ragchat" ./cmd/ragchat
cp "$ca" "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nragchat:x:65532:65532:ragchat:/data:/sbin/nologin\n' >"$work/rootfs/etc/passwd"
printf 'root:x:0:\nragchat:x:65532:\n' >"$work/rootfs/etc/group"
chmod 0755 "$work/rootfs/ragchat"
chmod 0644 "$work/rootfs/etc/passwd" "$work/rootfs/etc/group" "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
chmod 0700 "$work/data"
chmod 1777 "$work/tmp"

say "buildah from scratch"
# Two archives, so that owners and modes are exact (buildah copy keeps
# neither for directories): root's files, and the data directory owned by
# ragchat. buildah add unpacks them as they are.
tar --numeric-owner --owner=0 --group=0 -C "$work/rootfs" -cf "$work/root.tar" .
tar --numeric-owner --owner=0 --group=0 -C "$work" -cf "$work/tmp.tar" tmp
tar --numeric-owner --owner=65532 --group=65532 -C "$work" -cf "$work/data.tar" data
ctr=$(bh from --isolation chroot scratch)
for a in root tmp data; do
	bh add --quiet "$ctr" "$work/$a.tar" /
done

meta=(
	"org.opencontainers.image.title=ragchat"
	"org.opencontainers.image.description=ragchat GraphQL RAG chat server"
	"org.opencontainers.image.version=$version"
	"org.opencontainers.image.revision=$revision"
	"org.opencontainers.image.created=$created"
)
[[ -n $source_url ]] && meta+=("org.opencontainers.image.source=$source_url")
cfg=(
	--entrypoint '["/ragchat","serve"]'
	--user 65532:65532
	--workingdir /data
	--port 8080/tcp
	--volume /data
	--env RAGCHAT_ENV=production
	--env RAGCHAT_ADDR=0.0.0.0:8080
	--env RAGCHAT_DATA_DIR=/data
	--env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
	--stop-signal SIGTERM
	--os linux --arch "$(go env GOARCH)"
)
for m in "${meta[@]}"; do
	cfg+=(--label "$m" --annotation "$m")
done
bh config "${cfg[@]}" "$ctr"

say "commit oci:$out:ragchat:$version"
bh commit --quiet --format oci --disable-compression=false "$ctr" "oci:$out:ragchat:$version" >/dev/null
size=$(du -sb "$out/blobs" | cut -f1)
say "done: oci:$out:ragchat:$version ($((size / 1024 / 1024)) MiB of blobs; compressed layer and config)"
printf '%s\n' "oci:$out:ragchat:$version"

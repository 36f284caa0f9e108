#!/bin/bash
# vm.sh - run a command in a short-lived QEMU guest with Soft-RoCE (rdma_rxe),
# for libdta's RDMA tests on machines whose own kernel has no RDMA.
#
#   tests/rdma/vm.sh [--timeout S] [--per-boot K] [--mem MiB] -- CMD [ARGS...]
#   tests/rdma/vm.sh --prepare     fetch the kernel, build the initramfs, exit
#   tests/rdma/vm.sh --check       exit 0 if the VM can run here, 77 if not
#
# The guest boots Debian's stock kernel (downloaded with apt-get download and
# unpacked into a cache; nothing is installed into the host's /boot), mounts
# the host's / read-only over virtio-9p under a tmpfs overlay, so binaries
# built on the host run unchanged (from anywhere, /tmp included), creates a dummy interface 192.0.2.1/24
# with rxe0 on it, runs CMD as root in the current directory, and powers off.
# CMD's output and exit status come back to the host (exit 124: timeout,
# 125: the guest failed before reporting a status).
#
# Time limit: CMD may run S seconds (default 600) after the guest booted,
# or, with --per-boot K, K times the boot this run measured if that is
# more: a guest under emulation slows with the host's load, its boot
# and CMD alike, so a limit derived from the boot keeps its margin on a
# loaded machine. Whatever K, it is at most 4 S (a backstop).
#
# In the guest CMD sees DTA_VM=1, DTA_RDMA_DEV=rxe0, DTA_RDMA_IP=192.0.2.1.
#
# Packages (installed when run as root and missing): qemu-system-x86,
# busybox-static, kmod, iproute2, rdma-core, ibverbs-providers, xz-utils.
# Cache: $DTA_VM_CACHE, default /var/cache/libdta-vm (~/.cache/libdta-vm when
# not root).
set -euo pipefail

GUEST_IP=192.0.2.1
PKGS="qemu-system-x86 busybox-static kmod iproute2 rdma-core ibverbs-providers xz-utils"
# Modules the initramfs loads (their dependencies are added in order).
# rxe computes its ICRC through the crypto API: crc32 must be loaded first.
MODS="virtio_pci virtio_rng 9pnet_virtio 9p overlay dummy veth crypto-crc32 rdma_rxe ib_uverbs rdma_ucm"
me=$(readlink -f "$0")

say() { echo "vm.sh: $*" >&2; }

# ---- inside the guest: PID 1 after switch_root (see the initramfs /init) ----
if [ "${1:-}" = --in-guest ]; then
	run=$2
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	export HOME=/root LANG=C.UTF-8
	trap 'echo o > /proc/sysrq-trigger' EXIT
	set +e
	{
		ip link set lo up &&
		ip link add dta0 type dummy &&
		ip addr add $GUEST_IP/24 dev dta0 &&
		ip link set dta0 up &&
		rdma link add rxe0 type rxe netdev dta0
	} > "$run/setup.log" 2>&1 || { echo 125 > "$run/status"; exit; }
	export DTA_VM=1 DTA_RDMA_DEV=rxe0 DTA_RDMA_IP=$GUEST_IP
	cd "$(cat "$run/cwd")" 2>/dev/null || cd /
	bash "$run/cmd" > "$run/out" 2>&1 < /dev/null
	echo $? > "$run/status.new"
	mv "$run/status.new" "$run/status"
	sync
	exit
fi

# depmod and modprobe live in /usr/sbin, off an ordinary user's PATH.
PATH=$PATH:/usr/sbin:/sbin
if [ "$(id -u)" = 0 ]; then
	cache=${DTA_VM_CACHE:-/var/cache/libdta-vm}
else
	cache=${DTA_VM_CACHE:-$HOME/.cache/libdta-vm}
fi
timeout=600
per_boot=
mem=512
mode=run
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout=$2; shift 2 ;;
	--per-boot) per_boot=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--prepare) mode=prepare; shift ;;
	--check) mode=check; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '2,/^set -euo/p' "$me" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		say "missing packages:$missing (run as root, or: sudo apt-get install$missing)"
		exit 77
	fi
	say "installing$missing"
	{ DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing; } > /dev/null 2>&1 ||
		{ say "apt-get failed"; exit 77; }
fi

# ---- the guest kernel: Debian's, unpacked into the cache ----
# A kernel directory is complete when it holds a kernel, its modules'
# modules.dep and the marker "ready"; it is built in a temporary directory
# (ready written last, after each step was checked) and renamed into place,
# so no run sees a half-made one. One found incomplete anyway (made by an
# older vm.sh, which marked it ready without modules.dep when depmod was
# not on PATH) is removed and made again.
kernel_complete() {
	local d=$1 v
	v=$(cat "$d/version" 2>/dev/null) || return 1
	[ -n "$v" ] && [ -e "$d/ready" ] && [ -s "$d/root/lib/modules/$v/modules.dep" ] &&
		[ -s "$d/root/boot/vmlinuz-$v" ]
}

kernel_dir() {
	local pkg d
	for d in "$cache"/linux-image-*; do
		[ -d "$d" ] || continue
		kernel_complete "$d" && { echo "$d"; return 0; }
		say "removing an incomplete kernel cache: $d"
		rm -rf "$d"
	done
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	      sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -n 1)
	if [ -z "$pkg" ]; then
		apt-get update -qq > /dev/null 2>&1 || true
		pkg=$(apt-cache depends linux-image-amd64 |
		      sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -n 1)
	fi
	[ -n "$pkg" ] || { say "cannot find Debian's kernel package"; return 1; }
	say "fetching $pkg into $cache"
	mkdir -p "$cache" || { say "cannot create $cache"; return 1; }
	d=$(mktemp -d "$cache/tmp.XXXXXX") || { say "cannot write to $cache"; return 1; }
	# (This runs in $(...) || ..., where set -e does not apply: every
	# step is checked.)
	if ! { chmod 755 "$d" &&
	       (cd "$d" && apt-get download "$pkg" > /dev/null 2>&1); }; then
		say "apt-get download $pkg failed"; rm -rf "$d"; return 1
	fi
	if ! { dpkg-deb -x "$d"/*.deb "$d/root" && rm -f "$d"/*.deb &&
	       ls "$d/root/lib/modules" > "$d/version" &&
	       depmod -b "$d/root" "$(cat "$d/version")"; }; then
		say "unpacking $pkg or depmod failed"; rm -rf "$d"; return 1
	fi
	touch "$d/ready"
	kernel_complete "$d" ||
		{ say "$pkg unpacked incomplete (no kernel or modules.dep)"; rm -rf "$d"; return 1; }
	rm -rf "${cache:?}/$pkg"
	mv "$d" "$cache/$pkg" || { say "cannot rename $d"; rm -rf "$d"; return 1; }
	echo "$cache/$pkg"
}

# The initramfs: busybox and the modules; its /init mounts the host's root
# and hands over to this script (--in-guest).
make_initrd() {
	local kd=$1 kv t
	kv=$(cat "$kd/version")
	[ -s "$kd/initrd.gz" ] && [ "$(cat "$kd/initrd.id" 2>/dev/null)" = "$(md5sum < "$me")" ] &&
		return 0
	t=$(mktemp -d)
	mkdir -p "$t/bin" "$t/lib/mods"
	cp /bin/busybox "$t/bin/"
	for m in $MODS; do
		modprobe -d "$kd/root" -S "$kv" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' > "$t/order.full"
	while read -r ko; do
		cp "$ko" "$t/lib/mods/"
		basename "$ko" >> "$t/lib/mods/order"
	done < "$t/order.full"
	rm "$t/order.full"
	cat > "$t/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /host /tmpfs /root
mount -t proc none /proc
mount -t sysfs none /sys
mount -t devtmpfs none /dev
for m in $(cat /lib/mods/order); do insmod /lib/mods/$m; done
run=$(sed -n 's/.*dta.run=\([^ ]*\).*/\1/p' /proc/cmdline)
o=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o $o,ro hostroot /host || { echo o > /proc/sysrq-trigger; sleep 9; }
mount -t tmpfs none /tmpfs
mkdir -p /tmpfs/up /tmpfs/work
mount -t overlay -o lowerdir=/host,upperdir=/tmpfs/up,workdir=/tmpfs/work none /root
for d in dev proc sys; do mount --move /$d /root/$d; done
mkdir -p /root/dev/shm
mount -t tmpfs -o mode=1777 none /root/dev/shm
mount -t tmpfs none /root/run
mkdir -p /root$run
mount -t 9p -o $o,cache=none dtarun /root$run
touch /root$run/booted
exec switch_root /root /bin/bash "$run/vm.sh" --in-guest "$run"
EOF
	chmod 755 "$t/init"
	# Renamed into place: a run stopped half-way leaves no short initrd.
	(cd "$t" && find . | busybox cpio -o -H newc 2> /dev/null | gzip -1) > "$kd/initrd.gz.new"
	mv "$kd/initrd.gz.new" "$kd/initrd.gz"
	md5sum < "$me" > "$kd/initrd.id"
	rm -rf "$t"
}

kd=$(kernel_dir) || exit 77
make_initrd "$kd"
[ $mode = prepare ] && { say "ready: $kd"; exit 0; }
if [ $mode = check ]; then
	[ -e /dev/kvm ] || command -v qemu-system-x86_64 > /dev/null ||
		{ say "no /dev/kvm and no qemu-system-x86_64"; exit 77; }
	exit 0
fi
[ $# -gt 0 ] || { say "no command given"; exit 2; }

# /dev/kvm backed by PVM cannot run a stock kernel; plain KVM can.
accel=tcg,thread=multi cpu=max
if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then
	accel=kvm cpu=host
fi

run=$(mktemp -d "${TMPDIR:-/tmp}/dta-vm.XXXXXX")
trap 'rm -rf "$run"' EXIT
cp "$me" "$run/vm.sh"
pwd > "$run/cwd"
printf '%q ' "$@" > "$run/cmd"
kernel=$kd/root/boot/vmlinuz-$(cat "$kd/version")

# Two attempts: under emulation a guest very rarely hangs while booting;
# the command has not started then, so booting again is safe.
for attempt in 1 2; do
	rm -f "$run/booted" "$run/status" "$run/out"
	# A backstop for the whole guest; the limit that counts is set
	# once it has booted, below.
	hard=$((timeout + 100))
	[ -z "$per_boot" ] || hard=$((timeout * 4))
	t0=$(date +%s)
	timeout -k 5 "$hard" qemu-system-x86_64 -nodefaults -no-user-config \
		-display none -no-reboot -machine q35 -accel "$accel" -cpu "$cpu" \
		-smp "$(nproc)" -m "$mem" -nic none -serial "file:$run/console" \
		-kernel "$kernel" -initrd "$kd/initrd.gz" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off rdinit=/init dta.run=$run" \
		-fsdev local,id=r,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=r,mount_tag=hostroot \
		-fsdev "local,id=x,path=$run,security_model=none" \
		-device virtio-9p-pci,fsdev=x,mount_tag=dtarun \
		-device virtio-rng-pci < /dev/null > /dev/null 2>&1 &
	qpid=$!
	waited=0
	while [ ! -e "$run/booted" ] && kill -0 $qpid 2> /dev/null && [ $waited -lt 900 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if [ -e "$run/booted" ] || [ $attempt = 2 ]; then
		boot=$(($(date +%s) - t0))
		limit=$timeout
		if [ -n "$per_boot" ] && [ -e "$run/booted" ]; then
			[ $((boot * per_boot)) -le "$limit" ] || limit=$((boot * per_boot))
			[ "$limit" -le "$hard" ] || limit=$hard
		fi
		[ ! -e "$run/booted" ] ||
			say "guest booted in $boot s; the command may take $limit s"
		t1=$(date +%s)
		while kill -0 $qpid 2> /dev/null && [ $(($(date +%s) - t1)) -lt "$limit" ]; do
			sleep 1
		done
		rc=0
		if kill -0 $qpid 2> /dev/null; then
			kill $qpid 2> /dev/null || true
			wait $qpid 2> /dev/null || true
			rc=124
		else
			wait $qpid || rc=$?
		fi
		timeout=$limit
		break
	fi
	say "guest did not boot in 90 s; trying again"
	kill $qpid 2> /dev/null || true
	wait $qpid 2> /dev/null || true
done
[ -e "$run/out" ] && cat "$run/out"
if [ -s "$run/status" ]; then
	st=$(cat "$run/status")
	[ "$st" = 125 ] && { say "guest RDMA setup failed:"; cat "$run/setup.log" >&2; }
	exit "$st"
fi
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	say "timed out after $timeout s"
	exit 124
fi
say "the guest reported no status; console:"
tail -n 30 "$run/console" >&2 2> /dev/null || true
[ -s "$run/setup.log" ] && cat "$run/setup.log" >&2
exit 125

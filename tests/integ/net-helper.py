#!/usr/bin/env python3
"""net-helper.py - test servers and clients for the network sidecar tests.

Only ever talks to the addresses it is given; the tests give it loopback and
addresses inside network namespaces they created themselves.

  serve ADDR PORT...        TCP and UDP servers answering "hello-PORT"
  dns ADDR LOG NAME=IP...   a DNS server for test names (*.suffix=IP for any name below);
                            each query's name to LOG, its bytes in hex to LOG.raw
  connect HOST PORT [udp] [--hold FILE]   prints ok:REPLY | refused | blocked | timeout | error:...
  resolve NAME              getaddrinfo through the system resolver
  rawdns SERVER NAME        one A query straight to SERVER:53
  dnsextra NAME SECRET      an A query to 127.0.0.1:53 carrying SECRET in an authority
                            record, an additional record, an EDNS option and trailing bytes
  lookup-seq NAME           AAAA, then A, then AAAA for NAME to 127.0.0.1:53, each after the
                            last was answered (as some resolvers do); prints each rcode
  dnsonly LOG.raw NAME      "only the question" when the last query for NAME that reached
                            the DNS server held its question and at most an empty OPT
  connect-many HOST PORT0 N non-blocking TCP connects to N distinct ports (a flood)
  ctl SOCK set E... | add E | del E | get | events N   the sidecar's control socket
  ctl SOCK asks SECONDS | verdict ID V [ENTRY]        its requests (netreq.h)
  ctl SOCK hosts ADDR...    the host's own addresses the router guards
"""
import os
import select
import socket
import struct
import sys
import threading
import time


def serve(addr, ports):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET

    def tcp(s, port):
        while True:
            c, _ = s.accept()
            try:
                c.settimeout(5)
                data = c.recv(100)
                c.sendall(b"hello-%d %s" % (port, data.strip()))
            except OSError:
                pass
            c.close()

    def udp(s, port):
        while True:
            data, peer = s.recvfrom(2048)
            s.sendto(b"hello-%d %s" % (port, data.strip()), peer)

    # Bound before "serving" is printed: the tests wait for that line.
    for p in ports:
        t = socket.socket(fam, socket.SOCK_STREAM)
        u = socket.socket(fam, socket.SOCK_DGRAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if fam == socket.AF_INET6:      # beside an IPv4 server on the same port
            t.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        t.bind((addr, int(p)))
        t.listen(64)
        u.bind((addr, int(p)))
        threading.Thread(target=tcp, args=(t, int(p)), daemon=True).start()
        threading.Thread(target=udp, args=(u, int(p)), daemon=True).start()
    print("serving", flush=True)
    while True:
        time.sleep(3600)


def qname_of(pkt, off=12):
    labels = []
    while pkt[off]:
        n = pkt[off]
        labels.append(pkt[off + 1:off + 1 + n].decode("ascii", "replace"))
        off += 1 + n
    return ".".join(labels).lower(), off + 1


def rr(name_ptr, rtype, ttl, rdata):
    return name_ptr + struct.pack(">HHIH", rtype, 1, ttl, len(rdata)) + rdata


def encname(name):
    out = b""
    for l in name.split("."):
        out += bytes([len(l)]) + l.encode()
    return out + b"\0"


def dns_answer(q, table):
    name, off = qname_of(q)
    qtype, = struct.unpack(">H", q[off:off + 2])
    question = q[12:off + 4]
    hdr = lambda an, rcode=0: q[:2] + struct.pack(">HHHHH", 0x8180 | rcode, 1, an, 0, 0)
    ptr = b"\xc0\x0c"
    if name.startswith("loop."):       # a compression pointer to itself
        return hdr(1) + question + b"\xc0" + bytes([12 + len(question)]) + struct.pack(">HHIH", 1, 1, 60, 4) + b"\x0a\0\0\x01"
    if name.startswith("past."):       # rdlength past the end
        return hdr(1) + question + ptr + struct.pack(">HHIH", 1, 1, 60, 400) + b"\x0a\0\0\x01"
    if name.startswith("claims."):     # claims 10,000 records, holds 3,000
        return hdr(10000) + question + b"".join(rr(ptr, 1, 60, bytes([10, 199, 9, i % 250])) for i in range(3000))
    if name.startswith("many."):       # 4,000 real records
        return hdr(4000) + question + b"".join(rr(ptr, 1, 60, bytes([10, 199, 9, i % 250])) for i in range(4000))
    for k, v in table.items():        # "*.suffix=ip": any name below suffix
        if k.startswith("*.") and name.endswith(k[1:]) and name not in table:
            table = dict(table)
            table[name] = v
            break
    ans = []
    cur = name
    for _ in range(8):
        t = table.get(cur)
        if t is None:
            break
        kind, val, ttl = t
        owner = encname(cur)
        if kind == "CNAME":
            ans.append(rr(owner, 5, ttl, encname(val)))
            cur = val
            continue
        for v in val.split("+"):
            if ":" in v and qtype == 28:
                ans.append(rr(owner, 28, ttl, socket.inet_pton(socket.AF_INET6, v)))
            elif ":" not in v and qtype == 1:
                ans.append(rr(owner, 1, ttl, socket.inet_aton(v)))
        break
    if not ans and cur not in table:
        return hdr(0, 3) + question
    return hdr(len(ans)) + question + b"".join(ans)


def dns(addr, log, pairs):
    table = {}
    for p in pairs:               # name=ip[+ip] | name=cname:target | name=ip/ttl
        n, v = p.split("=", 1)
        ttl = 300
        if "/" in v:
            v, t = v.rsplit("/", 1)
            ttl = int(t)
        if v.startswith("cname:"):
            table[n] = ("CNAME", v[6:], ttl)
        else:
            table[n] = ("A", v, ttl)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, 53))
    print("dns ready", flush=True)
    while True:
        q, peer = s.recvfrom(4096)
        try:
            name, _ = qname_of(q)
        except Exception:
            continue
        with open(log, "a") as f:
            f.write(name + "\n")
        with open(log + ".raw", "a") as f:
            f.write("%s %s\n" % (name, q.hex()))
        s.sendto(dns_answer(q, table), peer)


def report(e):
    """How a send or connect failed, as the tests match it."""
    if isinstance(e, ConnectionRefusedError):
        print("refused")            # TCP reset, ICMP unreachable
        return 1
    if isinstance(e, PermissionError):
        print("blocked")            # dropped on output: the send itself fails
        return 1
    if isinstance(e, socket.timeout):
        print("timeout")
        return 2
    print("error: %s" % e)
    return 4


def connect(host, port, udp=False, hold=None):
    try:
        info = socket.getaddrinfo(host, port, 0, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
    except socket.gaierror as e:
        print("error: resolve: %s" % e)
        return 3
    fam, typ, _, _, sa = info[0]
    s = socket.socket(fam, typ)
    s.settimeout(3)
    try:
        s.connect(sa)
        if hold:
            print("connected", flush=True)
            deadline = time.time() + 60
            while not os.path.exists(hold) and time.time() < deadline:
                time.sleep(0.05)
        s.send(b"ping")
        print("ok:" + s.recv(100).decode())
        return 0
    except OSError as e:
        return report(e)


def resolve(name):
    try:
        addrs = sorted({i[4][0] for i in socket.getaddrinfo(name, 80, 0, socket.SOCK_STREAM)})
        print(" ".join(addrs))
        return 0
    except socket.gaierror as e:
        print("error: %s" % e)
        return 1


def rawdns(server, name):
    q = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + encname(name) + b"\0\x01\0\x01"
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    try:
        s.sendto(q, (server, 53))
        r = s.recv(4096)
        print("answer rcode=%d" % (r[3] & 0xf))
        return 0
    except OSError as e:
        return report(e)


def dnsextra(name, secret):
    sec = secret.encode()
    q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 1, 2) + encname(name) + b"\0\x01\0\x01"
    q += encname("ns." + secret) + struct.pack(">HHIH", 16, 1, 60, len(sec) + 1) + bytes([len(sec)]) + sec
    q += b"\xc0\x0c" + struct.pack(">HHIH", 16, 1, 60, len(sec) + 1) + bytes([len(sec)]) + sec
    opt = struct.pack(">HH", 65001, len(sec)) + sec      # a private EDNS option
    q += b"\0" + struct.pack(">HHIH", 41, 4096, 0x8000, len(opt)) + opt
    q += b"TRAIL" + sec
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    try:
        s.sendto(q, ("127.0.0.1", 53))
        r = s.recv(4096)
        an, = struct.unpack(">H", r[6:8])
        print("answer rcode=%d an=%d" % (r[3] & 0xf, an))
        return 0
    except OSError as e:
        return report(e)


def lookup_seq(name):
    out = []
    for i, (qt, label) in enumerate(((28, "AAAA"), (1, "A"), (28, "AAAA"))):
        q = struct.pack(">HHHHHH", 0x5000 + i, 0x0100, 1, 0, 0, 0) + encname(name) + struct.pack(">HH", qt, 1)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(10)
        try:
            s.sendto(q, ("127.0.0.1", 53))
            r = s.recv(4096)
            out.append("%s rcode=%d" % (label, r[3] & 0xf))
        except OSError as e:
            out.append("%s %s" % (label, e))
    print(" ".join(out))
    return 0


def dnsonly(rawlog, name):
    last = None
    with open(rawlog) as f:
        for line in f:
            n, h = line.split()
            if n == name:
                last = bytes.fromhex(h)
    if last is None:
        print("no query for %s" % name)
        return 1
    qd, an, ns, ar = struct.unpack(">4H", last[4:12])
    end = 12 + len(encname(name)) + 4
    if qd != 1 or an != 0 or ns != 0 or ar > 1:
        print("extra: qd=%d an=%d ns=%d ar=%d" % (qd, an, ns, ar))
        return 1
    rest = last[end:]
    if ar == 1:
        if len(rest) < 11 or rest[0] != 0 or rest[1:3] != b"\0\x29" or rest[9:11] != b"\0\0":
            print("extra: the additional record is not an empty OPT: %s" % rest.hex())
            return 1
        rest = rest[11:]
    if rest:
        print("extra: %d bytes after the question: %s" % (len(rest), rest.hex()))
        return 1
    print("only the question")
    return 0


# ---- control socket: proto.h frames "LZCT", version 1 ----
def frame(t, payload=b""):
    return struct.pack(">IBBHI", 0x4c5a4354, 1, 0, t, len(payload)) + payload


def pstr(s):
    b = s.encode()
    return struct.pack(">I", len(b)) + b


def read_frame(s):
    h = b""
    while len(h) < 12:
        c = s.recv(12 - len(h))
        if not c:
            return None, None
        h += c
    _, _, _, t, n = struct.unpack(">IBBHI", h)
    p = b""
    while len(p) < n:
        c = s.recv(n - len(p))
        if not c:
            return None, None
        p += c
    return t, p


def get_str(p, o):
    n, = struct.unpack(">I", p[o:o + 4])
    return p[o + 4:o + 4 + n].decode(), o + 4 + n


def ctl(path, cmd, args):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    if cmd == "set":
        s.sendall(frame(200, struct.pack(">I", len(args)) + b"".join(pstr(a) for a in args)))
    elif cmd == "hosts":          # the host's own addresses (NETCTL_HOST_ADDRS)
        s.sendall(frame(207, struct.pack(">I", len(args)) + b"".join(pstr(a) for a in args)))
    elif cmd in ("add", "del"):
        s.sendall(frame(201 if cmd == "add" else 202, pstr(args[0])))
    elif cmd == "get":
        s.sendall(frame(203))
    elif cmd == "events":
        s.sendall(frame(205))
    elif cmd == "raw":            # raw bytes (hex) as sent by a hostile peer
        s.sendall(bytes.fromhex(args[0]))
    elif cmd == "verdict":        # RID VERDICT [ENTRY]: 1 accept, 2 refuse, 3 deny
        s.sendall(frame(229, struct.pack(">II", int(args[0]), int(args[1])) +
                        pstr(args[2] if len(args) > 2 else "")))
    elif cmd == "asks":           # SECONDS: print requests (NETCTL_ASK) and summaries
        s.sendall(frame(205))
        return watch_asks(s, float(args[0]))
    t, p = read_frame(s)
    if t == 2:
        code, = struct.unpack(">I", p[:4])
        print("error: " + get_str(p, 4)[0])
        return 1
    if t == 204:
        n, = struct.unpack(">I", p[:4])
        o = 4
        for _ in range(n):
            v, o = get_str(p, o)
            print(v)
        return 0
    if cmd == "events":
        want = int(args[0]) if args else 0
        s.settimeout(float(args[1]) if len(args) > 1 else 1.0)
        got = 0
        try:
            while want == 0 or got < want:
                t, p = read_frame(s)
                if t is None:
                    break
                if t != 206:            # requests and summaries (asks) are not events
                    continue
                kind, allowed, hi, lo, proto, port, count = struct.unpack(">7I", p[:28])
                addr, o = get_str(p, 28)
                name, o = get_str(p, o)
                rule, o = get_str(p, o)
                kinds = {1: "flow", 2: "dns", 3: "lost", 4: "router"}
                print("%s %s proto=%d addr=%s port=%d name=%s count=%d rule=%s" % (
                    kinds.get(kind, "?"), "allow" if allowed else "deny", proto, addr, port,
                    name, count, rule), flush=True)
                got += 1
        except socket.timeout:
            pass
        return 0
    if t == 3:
        v, = struct.unpack(">I", p[:4])
        print("ok %d" % v if cmd == "verdict" else "ok")
        return 0
    print("unexpected frame %s" % t)
    return 1


def watch_asks(s, secs):
    """NETCTL_ASK (228) as 'ask id=N state=S kind=K proto=P addr=A port=N
    name=X attempts=N', NETREQ_SUMMARY (222) as 'summary pending=N overflow=N
    denied=N'; events are skipped."""
    states = {1: "pending", 2: "approved", 3: "denied", 4: "expired", 5: "gone"}
    end = time.time() + secs
    try:
        while time.time() < end:
            s.settimeout(max(0.05, end - time.time()))
            t, p = read_frame(s)
            if t is None:
                break
            if t == 228:
                (rid, st, kind, proto, port, att, _sess, _scope) = struct.unpack(">8I", p[:32])
                o = 32 + 24
                addr, o = get_str(p, o)
                name, o = get_str(p, o)
                print("ask id=%d state=%s kind=%s proto=%d addr=%s port=%d name=%s attempts=%d" % (
                    rid, states.get(st, "?"), "dns" if kind == 2 else "flow", proto, addr, port,
                    name, att), flush=True)
            elif t == 222:
                pend, over, den, _to = struct.unpack(">4I", p[:16])
                print("summary pending=%d overflow=%d denied=%d" % (pend, over, den), flush=True)
    except socket.timeout:
        pass
    return 0


def connect_many(host, port0, count):
    """count non-blocking TCP connects to host:port0.. (distinct destinations),
    each closed after a moment; prints how many were started."""
    socks = []
    started = 0
    for i in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect((host, port0 + i))
        except (BlockingIOError, OSError):
            pass
        started += 1
        socks.append(s)
        if len(socks) >= 200:
            for x in socks:
                x.close()
            socks = []
    for x in socks:
        x.close()
    print("started %d" % started)
    return 0


def main():
    a = sys.argv[1:]
    if a[0] == "serve":
        return serve(a[1], a[2:])
    if a[0] == "dns":
        return dns(a[1], a[2], a[3:])
    if a[0] == "connect":
        hold = a[a.index("--hold") + 1] if "--hold" in a else None
        return connect(a[1], int(a[2]), "udp" in a[3:], hold)
    if a[0] == "resolve":
        return resolve(a[1])
    if a[0] == "connect-many":
        return connect_many(a[1], int(a[2]), int(a[3]))
    if a[0] == "dnsextra":
        return dnsextra(a[1], a[2])
    if a[0] == "lookup-seq":
        return lookup_seq(a[1])
    if a[0] == "dnsonly":
        return dnsonly(a[1], a[2])
    if a[0] == "rawdns":
        return rawdns(a[1], a[2])
    if a[0] == "ctl":
        return ctl(a[1], a[2], a[3:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())

package mcpserver

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// DefaultPort is the fixed, uncommon TCP port Ireneo's MCP server listens
// on unless told otherwise. It is in the registered range but assigned to
// nothing well known, so clients can be configured once and keep working.
const DefaultPort = 47119

// DefaultAddr is the default listen address: IPv4 loopback on DefaultPort.
const DefaultAddr = "127.0.0.1:47119"

// EndpointPath is the path of the Streamable HTTP endpoint.
const EndpointPath = "/mcp"

// URLFor is the MCP endpoint URL for a listen address.
func URLFor(addr string) string {
	return "http://" + addr + EndpointPath
}

// NormalizeAddr checks that addr is a loopback address and returns it as
// host:port ready to listen on. An empty addr is DefaultAddr; a bare host
// gets DefaultPort; "localhost" becomes 127.0.0.1 so the bind is exact.
// Anything that could be reached from another machine is refused.
func NormalizeAddr(addr string) (string, error) {
	if addr == "" {
		return DefaultAddr, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// A bare host, possibly a bracketed IPv6 one.
		host, port = strings.Trim(addr, "[]"), strconv.Itoa(DefaultPort)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return "", fmt.Errorf("address %q: bad port %q", addr, port)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return "", fmt.Errorf("address %q is not a loopback address: Ireneo serves this machine only; use 127.0.0.1, ::1 or localhost", addr)
	}
	return net.JoinHostPort(ip.Unmap().String(), strconv.Itoa(p)), nil
}

// isLoopbackHostname reports whether host (no port) names loopback.
func isLoopbackHostname(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// hostAllowed reports whether a request's Host header names a loopback
// host on the port the server listens on. Anything else may be a DNS
// rebinding attack: a web page whose own name now resolves to 127.0.0.1.
func hostAllowed(hostHeader string, port string) bool {
	host, p, err := net.SplitHostPort(hostHeader)
	if err != nil {
		return false // no port: the default 80 is never ours
	}
	return p == port && isLoopbackHostname(host)
}

// originAllowed reports whether an Origin header, if any, is this
// server's own: http, a loopback host, the port it listens on. Browsers
// send Origin on cross-site requests; an absent Origin is a non-browser
// client. A page another program serves on loopback (a dev server, a
// package's docs) is as foreign as any web site.
func originAllowed(origin, port string) bool {
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.Path != "" || u.User != nil {
		return false // includes the opaque "null" origin
	}
	return u.Port() == port && isLoopbackHostname(u.Hostname())
}

// portInUse reports whether a listen error means the port is taken.
// ErrPortInUse is returned by Start when another program listens on the
// port already.
var ErrPortInUse = errors.New("is already in use")

func portInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE)
}

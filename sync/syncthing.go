package sync

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Setting the folder up in the Syncthing that runs on this machine, through
// its REST API (the key is in its config.xml): the folder is added under
// one id on every machine, so each machine's setup joins the others'
// share, and it is shared with every device already paired. Pairing
// itself — which devices are the person's — stays in Syncthing.

// SyncthingFolderID is the folder id Ireneo gives its folder in Syncthing,
// the same on every machine.
const SyncthingFolderID = "ireneo-memory"

// Syncthing is the REST API of the local Syncthing.
type Syncthing struct {
	URL    string // http://127.0.0.1:8384, https://…, or http://unix for a socket
	APIKey string
	Home   string // its configuration folder
	client *http.Client
}

// SyncthingHomes are where Syncthing keeps its config.xml by default here,
// most likely first ($STHOMEDIR, when set, before them).
func SyncthingHomes() []string {
	var out []string
	if d := os.Getenv("STHOMEDIR"); d != "" {
		out = append(out, d)
	}
	home, _ := os.UserHomeDir()
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			out = append(out, filepath.Join(d, "Syncthing"))
		}
	case "darwin":
		out = append(out, filepath.Join(home, "Library", "Application Support", "Syncthing"))
	default:
		state := os.Getenv("XDG_STATE_HOME")
		if state == "" {
			state = filepath.Join(home, ".local", "state")
		}
		conf := os.Getenv("XDG_CONFIG_HOME")
		if conf == "" {
			conf = filepath.Join(home, ".config")
		}
		out = append(out, filepath.Join(state, "syncthing"), filepath.Join(conf, "syncthing"))
	}
	return out
}

// syncthingConfig is what Ireneo reads of config.xml.
type syncthingConfig struct {
	GUI struct {
		Enabled string `xml:"enabled,attr"`
		TLS     string `xml:"tls,attr"`
		Address string `xml:"address"`
		APIKey  string `xml:"apikey"`
	} `xml:"gui"`
}

// FindSyncthing reads the local Syncthing's address and API key from
// config.xml in home, or, with home "", in the first of SyncthingHomes
// that has one.
func FindSyncthing(home string) (*Syncthing, error) {
	homes := []string{home}
	if home == "" {
		homes = SyncthingHomes()
	}
	var tried []string
	for _, h := range homes {
		p := filepath.Join(h, "config.xml")
		data, err := os.ReadFile(p)
		if err != nil {
			tried = append(tried, p)
			continue
		}
		return syncthingFromConfig(h, data)
	}
	return nil, fmt.Errorf("no Syncthing configuration found (looked for %s); is Syncthing installed and started once? Pass --syncthing-home if it keeps its files elsewhere", strings.Join(tried, ", "))
}

func syncthingFromConfig(home string, data []byte) (*Syncthing, error) {
	p := filepath.Join(home, "config.xml")
	var c syncthingConfig
	if err := xml.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if c.GUI.APIKey == "" {
		return nil, fmt.Errorf("%s has no API key: open Syncthing's web page once (Actions, Settings, GUI) so it makes one", p)
	}
	if c.GUI.Enabled == "false" {
		return nil, fmt.Errorf("%s: Syncthing's GUI and REST API are turned off; turn them on in its settings", p)
	}
	s := &Syncthing{APIKey: c.GUI.APIKey, Home: home}
	addr := strings.TrimSpace(c.GUI.Address)
	tr := &http.Transport{Proxy: nil}
	if sock, ok := strings.CutPrefix(addr, "unix://"); ok {
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}
		s.URL = "http://unix"
	} else {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("%s: GUI address %q: %w", p, addr, err)
		}
		switch ip := net.ParseIP(host); {
		case host == "" || ip != nil && ip.IsUnspecified():
			host = "127.0.0.1" // listening everywhere: this machine's loopback too
		case host == "localhost" || ip != nil && ip.IsLoopback():
		default:
			return nil, fmt.Errorf("%s: Syncthing's GUI listens on %s, not on this machine's loopback; Ireneo talks to it on 127.0.0.1 only", p, addr)
		}
		scheme := "http"
		if c.GUI.TLS == "true" {
			scheme = "https"
			cfg, err := pinnedTLS(filepath.Join(home, "https-cert.pem"))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			tr.TLSClientConfig = cfg
		}
		s.URL = scheme + "://" + net.JoinHostPort(host, port)
	}
	s.client = &http.Client{Transport: tr, Timeout: 30 * time.Second}
	return s, nil
}

// pinnedTLS trusts exactly the certificate Syncthing made for its GUI (it
// is self-signed, for no host name).
func pinnedTLS(certFile string) (*tls.Config, error) {
	data, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("the GUI uses TLS, but its certificate cannot be read: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s holds no certificate", certFile)
	}
	want := block.Bytes
	return &tls.Config{
		InsecureSkipVerify: true, // checked below, against the pinned certificate
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || !bytes.Equal(raw[0], want) {
				return errors.New("the certificate is not the one in Syncthing's configuration folder")
			}
			return nil
		},
	}, nil
}

// Do calls the REST API: method, path (/rest/…), a JSON body (nil for
// none), and decodes a JSON answer into out (nil to drop it).
func (s *Syncthing) Do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-Key", s.APIKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("Syncthing at %s: %w (is it running?)", s.URL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("Syncthing at %s: %w", s.URL, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("Syncthing %s %s: %w", method, path, errNotFoundST)
	case resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("Syncthing at %s refused the API key from %s", s.URL, filepath.Join(s.Home, "config.xml"))
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("Syncthing %s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(data)))
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("Syncthing %s %s: %w", method, path, err)
		}
	}
	return nil
}

var errNotFoundST = errors.New("not found")

// MyID is this Syncthing's device id.
func (s *Syncthing) MyID(ctx context.Context) (string, error) {
	var st struct {
		MyID string `json:"myID"`
	}
	if err := s.Do(ctx, http.MethodGet, "/rest/system/status", nil, &st); err != nil {
		return "", err
	}
	return st.MyID, nil
}

// SyncthingDevice is a device as Syncthing's configuration lists it.
type SyncthingDevice struct {
	DeviceID string `json:"deviceID"`
	Name     string `json:"name"`
}

// ShareReport says what ShareFolder did.
type ShareReport struct {
	FolderID string   `json:"folder_id"`
	Created  bool     `json:"created"` // a new folder; else one Syncthing had
	SharedTo []string `json:"shared_with"`
	Added    []string `json:"newly_shared_with"`
}

// ShareFolder adds path to Syncthing as the Ireneo folder (the one at that
// path already, else SyncthingFolderID), shared with every device Syncthing
// has paired, its watcher on. A folder of that id elsewhere is refused.
func (s *Syncthing) ShareFolder(ctx context.Context, path string) (ShareReport, error) {
	var rep ShareReport
	me, err := s.MyID(ctx)
	if err != nil {
		return rep, err
	}
	var devices []SyncthingDevice
	if err := s.Do(ctx, http.MethodGet, "/rest/config/devices", nil, &devices); err != nil {
		return rep, err
	}
	var folders []map[string]any
	if err := s.Do(ctx, http.MethodGet, "/rest/config/folders", nil, &folders); err != nil {
		return rep, err
	}
	var folder map[string]any
	for _, f := range folders {
		p, _ := f["path"].(string)
		id, _ := f["id"].(string)
		if samePath(p, path) {
			folder = f
			break
		}
		if id == SyncthingFolderID {
			return rep, fmt.Errorf("Syncthing already syncs a folder %q at %s; set Ireneo's sync folder up there (`ireneo sync setup %s`) or remove that folder from Syncthing", id, p, p)
		}
	}
	if folder == nil {
		rep.Created = true
		folder = map[string]any{}
		// The defaults the person set for new folders, where this
		// Syncthing has them (1.13 and newer).
		s.Do(ctx, http.MethodGet, "/rest/config/defaults/folder", nil, &folder)
		folder["id"] = SyncthingFolderID
		folder["label"] = "Ireneo memory"
		folder["path"] = path
		folder["type"] = "sendreceive"
		folder["paused"] = false
		folder["fsWatcherEnabled"] = true
		folder["fsWatcherDelayS"] = 1 // small files, read within seconds
		if v, ok := folder["rescanIntervalS"].(float64); !ok || v <= 0 {
			folder["rescanIntervalS"] = 3600
		}
	}
	rep.FolderID, _ = folder["id"].(string)
	shared := map[string]bool{}
	list, _ := folder["devices"].([]any)
	for _, d := range list {
		if m, ok := d.(map[string]any); ok {
			if id, _ := m["deviceID"].(string); id != "" {
				shared[id] = true
			}
		}
	}
	for _, d := range append([]SyncthingDevice{{DeviceID: me}}, devices...) {
		if !shared[d.DeviceID] {
			shared[d.DeviceID] = true
			list = append(list, map[string]any{"deviceID": d.DeviceID})
			if d.DeviceID != me {
				rep.Added = append(rep.Added, orID(d))
			}
		}
		if d.DeviceID != me {
			rep.SharedTo = append(rep.SharedTo, orID(d))
		}
	}
	folder["devices"] = list
	if err := s.Do(ctx, http.MethodPut, "/rest/config/folders/"+url.PathEscape(rep.FolderID), folder, nil); err != nil {
		return rep, err
	}
	return rep, nil
}

func orID(d SyncthingDevice) string {
	if d.Name != "" {
		return d.Name
	}
	return d.DeviceID
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ca, _ := filepath.Abs(a)
	cb, _ := filepath.Abs(b)
	return filepath.Clean(ca) == filepath.Clean(cb)
}

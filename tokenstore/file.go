package tokenstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/adrg/xdg"

	"github.com/ireneo-app/ireneo/funes"
)

// FileStoreWarning is what the CLI and GUI show whenever the file token
// store is in use.
const FileStoreWarning = "warning: token secrets are kept in a plain file (%s, mode 0600), not in the OS keyring; " +
	"anyone who can read your files can use them. Prefer the OS keyring when you can."

// DefaultTokenFile is where the file token store keeps secrets when no path is given.
func DefaultTokenFile() string {
	return filepath.Join(xdg.ConfigHome, "ireneo", "token-secrets.json")
}

// FileTokenStore keeps token secrets in a JSON file readable only by its
// owner. It exists for machines without a usable keyring, behind an explicit
// `--token-store file`.
type FileTokenStore struct {
	Path string
	mu   sync.Mutex
}

// NewFileTokenStore returns a store on the file at path (DefaultTokenFile if empty).
func NewFileTokenStore(path string) *FileTokenStore {
	if path == "" {
		path = DefaultTokenFile()
	}
	return &FileTokenStore{Path: path}
}

func (f *FileTokenStore) load() (map[string]string, error) {
	data, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token file %s: %w", f.Path, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("token file %s: not valid JSON: %w", f.Path, err)
	}
	return m, nil
}

func (f *FileTokenStore) save(m map[string]string) error {
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("token file %s: %w", f.Path, err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("token file %s: %w", f.Path, err)
	}
	if err := funes.WriteFileAtomic(f.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("token file %s: %w", f.Path, err)
	}
	return nil
}

// Set implements TokenStore.
func (f *FileTokenStore) Set(_ context.Context, name, secret string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	m[name] = secret
	return f.save(m)
}

// Get implements TokenStore.
func (f *FileTokenStore) Get(_ context.Context, name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return "", err
	}
	s, ok := m[name]
	if !ok {
		return "", fmt.Errorf("%s: %w", name, ErrSecretNotFound)
	}
	return s, nil
}

// Delete implements TokenStore.
func (f *FileTokenStore) Delete(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := m[name]; !ok {
		return nil
	}
	delete(m, name)
	return f.save(m)
}

// Check implements TokenStore: the file must be readable if it exists, and
// not readable by others.
func (f *FileTokenStore) Check(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := os.Stat(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("token file %s: %w", f.Path, err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("token file %s is readable by others (mode %v); run `chmod 600 %s`", f.Path, st.Mode().Perm(), f.Path)
	}
	_, err = f.load()
	return err
}

// Probe implements TokenStore.
func (f *FileTokenStore) Probe(ctx context.Context) error { return f.Check(ctx) }

// Describe implements TokenStore.
func (f *FileTokenStore) Describe() string { return "the file " + f.Path }

package scrub

import (
	"strings"
	"testing"
)

// TestPasswordInContext: a password given in words is found, and only the
// password is redacted. Each text marks the password with ⟦ ⟧.
func TestPasswordInContext(t *testing.T) {
	sc := newTestScrubber(t)
	for _, marked := range []string{
		"my password is ⟦hunter2⟧",
		"My password is ⟦Hx8!k2mz⟧.",
		"the wifi password is ⟦Tr0ub4dor&3⟧, don't share it",
		"The password for the admin panel is ⟦Adm1n-2024⟧ and the user is ana",
		"password for db: ⟦Qz7#pLw2⟧",
		"pwd: ⟦Hx8!k2mz⟧",
		"PWD=⟦Hx8!k2mz⟧",
		"password = ⟦s3cr3t!Value⟧",
		"password: '⟦correct horse 42⟧'",
		`{"username": "ana", "password": "⟦Sunflower#77⟧"}`,
		"DB_PASSWORD=⟦Pg-4471-prod⟧",
		"pass: ⟦Kw9$mz2q⟧",
		"PW: ⟦Kw9$mz2q⟧",
		"my password's ⟦Tulip#2026⟧",
		"the router password’s ⟦Tulip#2026⟧",
		"**Password:** ⟦Rk2!vx9q⟧",
		"the password is now ⟦Winter2025!⟧",
		"my password was changed to ⟦N3wPass!⟧ yesterday",
		"the PIN-like password is 12345 but my password is ⟦19841984⟧",
		"mein Passwort ist ⟦Sommer2024!⟧",
		"minha senha é ⟦Gato#1234⟧",
		"mi contraseña es ⟦Perro_55x⟧",
		"mon mot de passe est ⟦Chat!9876⟧",
		"het wachtwoord is ⟦Fiets88!x⟧",
		"пароль: ⟦Zx12!qwe⟧",
		"passphrase → ⟦blue-cat-7-moon⟧",
	} {
		text, want := unmark(t, marked)
		ms := sc.Scan(text)
		var got []string
		for _, m := range ms {
			got = append(got, text[m.Start:m.End])
		}
		if len(ms) != 1 || got[0] != want {
			t.Errorf("%q: found %q, want [%q]", text, got, want)
			continue
		}
		if ms[0].Rule != RulePassword && ms[0].Rule != genericRule {
			t.Errorf("%q: rule %s", text, ms[0].Rule)
		}
	}
}

// TestPasswordProseAndCode: prose that talks about passwords, and code
// that names them, hold no secret.
func TestPasswordProseAndCode(t *testing.T) {
	sc := newTestScrubber(t)
	prose := `To reset your password, open Settings and choose Security. Your password should be long: ` +
		`a password is strong when it has twelve characters or more, and the password is stored hashed, ` +
		`never in plain text. If the password was rejected, the password is probably too short. ` +
		`My password is the same as before, and the password for the router is written on its back. ` +
		`Password managers help; the password: see the vault entry "router". Passwords expire every 90 days. ` +
		`The pass rate was 98%, everyone passed, and we bypassed the old login. Run pwd to print the folder.`
	for _, text := range []string{
		prose,
		"password is required",
		"the password is incorrect!",
		"Password: Required",
		"Your password is: ********",
		"pwd: /home/ana/projects/ireneo",
		"password = request.form['password']",
		"password = os.environ.get('DB_PASSWORD')",
		"password: process.env.DB_PASSWORD",
		"password = user.password",
		"password: string;",
		"password=password",
		"self.password = hash_password(raw)",
		`"password": "$PASSWORD"`,
		"password: {{ .Values.db.password }}",
		"the password is 8 characters long",
		"password: see https://vault.example.com/ui/router",
		"password: ask ana@example.com",
		"password expires on 2026-03-01",
		`'password' => 'required|string|min:8|confirmed',`,
		`<input type="password" name="password" placeholder="Password1">`,
		"password = getpass.getpass()",
		`password: "${{ secrets.DB_PASSWORD }}"`,
		"the password's strength is shown in green",
		"pw strength meter 2024 edition",
	} {
		if ms := sc.Scan(text); len(ms) > 0 {
			t.Errorf("flagged %s %q in %q", ms[0].Rule, text[ms[0].Start:ms[0].End], text)
		}
	}
}

// TestPlaceholdersAreKept: documentation placeholders in an assistant's
// instructions are not secrets, whatever rule looks at them.
func TestPlaceholdersAreKept(t *testing.T) {
	sc := newTestScrubber(t)
	for _, text := range []string{
		"git clone https://your-username:your-token@github.com/org/repo.git",
		"git remote set-url origin https://USERNAME:TOKEN@github.com/org/repo.git",
		"https://oauth2:${GITLAB_TOKEN}@gitlab.com/group/project.git",
		"https://user:$GITHUB_TOKEN@github.com/org/repo",
		"postgres://app:<password>@localhost:5432/app",
		"mysql://root:YOUR_PASSWORD@127.0.0.1/db",
		"redis://default:xxxx@cache:6379",
		"amqp://guest:changeme@rabbit:5672",
		"https://admin:example@host/",
		`os.environ["DATABASE_URL"] = "postgresql+psycopg2://testuser:testpassword@localhost:5432/test"`,
		"password: mypassword123",
		"export OPENAI_API_KEY=YOUR_API_KEY",
		"api_key = \"YOUR_API_KEY\"",
		"ANTHROPIC_API_KEY=your-api-key-here",
		"token: ${TOKEN}",
		"Authorization token: <your-token>",
		"password: <password>",
		"password: xxxx",
		"password=changeme",
		"password: example",
		"password: YOUR_PASSWORD_HERE",
		"secret_key = 'your_secret_key'",
		"api_key: 'paste-your-key-here'",
	} {
		if ms := sc.Scan(text); len(ms) > 0 {
			t.Errorf("flagged %s %q in %q", ms[0].Rule, text[ms[0].Start:ms[0].End], text)
		}
	}
	// A real password next to a placeholder is still found.
	text, want := unmark(t, "https://your-username:⟦Vx9qTz4LmW2p⟧@github.com/org/repo.git")
	if ms := sc.Scan(text); len(ms) != 1 || text[ms[0].Start:ms[0].End] != want || ms[0].Rule != RuleURLPassword {
		t.Errorf("%q: %+v", text, ms)
	}
}

// unmark takes the ⟦marked⟧ span out of s.
func unmark(t *testing.T, s string) (text, marked string) {
	t.Helper()
	a, rest, ok1 := strings.Cut(s, "⟦")
	m, b, ok2 := strings.Cut(rest, "⟧")
	if !ok1 || !ok2 {
		t.Fatalf("no marked span in %q", s)
	}
	return a + m + b, m
}

// Ireneo keeps one local, verbatim, searchable memory of everything a person
// has discussed with AI assistants, and serves it to their local agents.
//
// With no arguments it starts the tray app; with a subcommand it runs the
// headless command line (`ireneo help` lists the commands).
package main

import (
	"os"

	"github.com/ireneo-app/ireneo/app/cli"
	"github.com/ireneo-app/ireneo/app/gui"
	_ "github.com/ireneo-app/ireneo/app/localeenv" // before Fyne looks up the locale
	"github.com/ireneo-app/ireneo/config"
)

func main() {
	cfg := config.Load() // the one configuration: environment, then settings.json
	if len(os.Args) < 2 {
		os.Exit(gui.Main(cfg))
	}
	os.Exit(cli.Main(cfg, os.Args[1:]))
}

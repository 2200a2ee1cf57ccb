//! `tracelab completions <shell>` and `tracelab man`: shell completion
//! scripts and man pages generated from the clap definitions, so they never
//! drift from the options the binary takes.

use std::path::PathBuf;

use clap::CommandFactory;
use clap_complete::Shell;

use tracelab_schema::error::Error;

/// Print a shell completion script.
///
/// Examples:
///   tracelab completions bash > ~/.local/share/bash-completion/completions/tracelab
///   tracelab completions zsh > ~/.zfunc/_tracelab
///   tracelab completions fish > ~/.config/fish/completions/tracelab.fish
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: Shell,
}

/// Write the man pages: tracelab(1) and one per verb.
///
/// Without --out, prints tracelab(1) to stdout. With --out DIR, writes
/// tracelab.1 and tracelab-<verb>.1 for every verb into DIR.
///
/// Examples:
///   tracelab man | man -l -
///   tracelab man --out ~/.local/share/man/man1
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ManArgs {
    /// The folder to write the pages to (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub fn completions(args: CompletionsArgs) -> anyhow::Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut super::Cli::command(), "tracelab", &mut script);
    super::out(&String::from_utf8(script)?)?;
    Ok(0)
}

pub fn man(args: ManArgs) -> anyhow::Result<i32> {
    let cmd = super::Cli::command();
    let Some(dir) = args.out else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page)?;
        super::out(&String::from_utf8(page)?)?;
        return Ok(0);
    };
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    clap_mangen::generate_to(cmd, &dir).map_err(|e| Error::io(&dir, e))?;
    Ok(0)
}

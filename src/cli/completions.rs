//! `tracelab completions <shell>` and `tracelab man`: shell completion
//! scripts and man pages generated from the clap definitions, so they never
//! drift from the options the binary takes.

use std::path::PathBuf;

use clap::CommandFactory;
use clap_complete::Shell;

use tracelab_schema::error::Error;
use tracelab_schema::outfile::{self, Replace};

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
    /// The folder to write the pages to (created if missing; each page
    /// replaced whole, other files left alone).
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
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        let why = "is a symbolic link; give the folder itself";
        return Err(Error::Usage(format!("--out {}: {why}", dir.display())).into());
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let pages = pages(cmd)?;
    // Every page checked before any is written, so a link among them stops
    // the run with nothing changed.
    for (name, _) in &pages {
        outfile::check("--out", &dir.join(name), Replace::Regular)?;
    }
    for (name, page) in &pages {
        outfile::write(&dir.join(name), page, Replace::Regular)?;
    }
    Ok(0)
}

/// (file name, page) of `cmd` and of each visible subcommand, depth first,
/// as `clap_mangen::generate_to` names them (`tracelab-report.1`).
fn pages(cmd: clap::Command) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        out.extend(pages(sub)?);
    }
    let man = clap_mangen::Man::new(cmd);
    let mut page = Vec::new();
    man.render(&mut page)?;
    out.push((man.get_filename(), page));
    Ok(out)
}

//! Synthetic pai trace (being written).

use std::path::Path;

use super::{Ctx, FileReport};
use crate::error::{Error, Result};

pub fn generate(_ctx: &Ctx, _dir: &Path) -> Result<Vec<FileReport>> {
    Err(Error::Usage("synth pai: not implemented yet".into()))
}

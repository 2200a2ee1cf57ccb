//! Synthetic philly trace (being written).

use std::path::Path;

use super::{Ctx, FileReport};
use crate::error::{Error, Result};

pub fn generate(_ctx: &Ctx, _dir: &Path) -> Result<Vec<FileReport>> {
    Err(Error::Usage("synth philly: not implemented yet".into()))
}

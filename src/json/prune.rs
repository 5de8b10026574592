//! Pruning: which parts of a document [`parse_pruned`](super::parse_pruned) builds
//! tokens for ([`Keep`]), and what to keep of each part of a kept value.

/// Which parts of a document to build tokens for when parsing with
/// [`parse_pruned`](super::parse_pruned); the rest is still checked, then skipped: a
/// member value left out becomes `Null` (its key stays), an array whose items are left
/// out holds no items.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Keep {
    /// Keep this whole value.
    pub all: bool,
    /// The members of an object to keep, and what to keep of each.
    pub members: Vec<(String, Keep)>,
    /// What to keep of each item of an array (None: no items).
    pub items: Option<Box<Keep>>,
}

impl Keep {
    /// Keep everything.
    pub fn all() -> Keep {
        Keep {
            all: true,
            ..Keep::default()
        }
    }

    /// What to keep of the member `key` (None: skip it).
    pub(super) fn member(&self, key: &str) -> Option<&Keep> {
        self.members
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, keep)| keep)
    }

    /// Keep `other`'s parts as well.
    pub fn merge(&mut self, other: &Keep) {
        self.all |= other.all;
        for (key, keep) in &other.members {
            match self.members.iter_mut().find(|(k, _)| k == key) {
                Some((_, mine)) => mine.merge(keep),
                None => self.members.push((key.clone(), keep.clone())),
            }
        }
        match (&mut self.items, &other.items) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, Some(theirs)) => self.items = Some(theirs.clone()),
            _ => {}
        }
    }
}

/// What to keep of a part (a member's value, an array's items) of a value of which
/// `keep` is kept (None: all of it), `part` naming the part's `Keep` in `keep`: None to
/// skip the part, else what to keep of it (None: all of it).
pub(super) fn keep_of_part<'k>(
    keep: Option<&'k Keep>,
    part: impl FnOnce(&'k Keep) -> Option<&'k Keep>,
) -> Option<Option<&'k Keep>> {
    let keep = match keep {
        None => None,
        Some(keep) if keep.all => None,
        Some(keep) => Some(part(keep)?),
    };
    Some(keep.filter(|k| !k.all))
}

"""One module per provider format: its walker (`calls`), its shape test (`detect`), its
batch envelope (`unwrap_batch`, where the provider has one) and its README lines; the
registry listing them lives here."""

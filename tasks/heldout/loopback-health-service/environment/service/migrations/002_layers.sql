CREATE TABLE layers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
ALTER TABLE tiles ADD COLUMN layer_id INTEGER REFERENCES layers(id);
INSERT INTO schema_migrations (version) VALUES ('002_layers');

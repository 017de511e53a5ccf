import SQLite from "better-sqlite3";

/*
 * Uptime Kuma databases made the way its own migrations make them (docs/research/importers.md): 1.23's tables from
 * its SQL patches, and 2.x's with knex's migration tables and the columns its knex migrations add. Columns are
 * created in the order the patches add them, so an importer that read them by position would fail here.
 */

const MONITOR_1_23 = `
CREATE TABLE monitor (
  id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, name VARCHAR(150), active BOOLEAN DEFAULT 1 NOT NULL,
  user_id INTEGER, interval INTEGER DEFAULT 20 NOT NULL, url TEXT, type VARCHAR(20), weight INTEGER DEFAULT 2000,
  hostname VARCHAR(255), port INTEGER, created_date DATETIME DEFAULT (DATETIME('now')) NOT NULL,
  keyword VARCHAR(255), maxretries INTEGER NOT NULL DEFAULT 0, ignore_tls BOOLEAN DEFAULT 0 NOT NULL,
  upside_down BOOLEAN DEFAULT 0 NOT NULL, maxredirects INTEGER DEFAULT 10 NOT NULL,
  accepted_statuscodes_json TEXT DEFAULT '["200-299"]' NOT NULL
);
ALTER TABLE monitor ADD dns_resolve_type VARCHAR(5);
ALTER TABLE monitor ADD dns_resolve_server VARCHAR(255);
ALTER TABLE monitor ADD dns_last_result VARCHAR(255);
ALTER TABLE monitor ADD retry_interval INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE monitor ADD push_token VARCHAR(20) DEFAULT NULL;
ALTER TABLE monitor ADD method TEXT DEFAULT 'GET' NOT NULL;
ALTER TABLE monitor ADD body TEXT DEFAULT NULL;
ALTER TABLE monitor ADD headers TEXT DEFAULT NULL;
ALTER TABLE monitor ADD basic_auth_user TEXT DEFAULT NULL;
ALTER TABLE monitor ADD basic_auth_pass TEXT DEFAULT NULL;
ALTER TABLE monitor ADD expiry_notification BOOLEAN DEFAULT 1;
ALTER TABLE monitor ADD auth_method VARCHAR(250);
ALTER TABLE monitor ADD resend_interval INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE monitor ADD packet_size INTEGER DEFAULT 56 NOT NULL;
ALTER TABLE monitor ADD http_body_encoding VARCHAR(25);
ALTER TABLE monitor ADD description TEXT DEFAULT NULL;
ALTER TABLE monitor ADD tls_ca TEXT DEFAULT NULL;
ALTER TABLE monitor ADD tls_cert TEXT DEFAULT NULL;
ALTER TABLE monitor ADD tls_key TEXT DEFAULT NULL;
ALTER TABLE monitor ADD parent INTEGER REFERENCES monitor(id) ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE monitor ADD invert_keyword BOOLEAN DEFAULT 0 NOT NULL;
ALTER TABLE monitor ADD json_path TEXT;
ALTER TABLE monitor ADD expected_value VARCHAR(255);
ALTER TABLE monitor ADD timeout DOUBLE DEFAULT 0 NOT NULL;
CREATE TABLE setting (id INTEGER PRIMARY KEY AUTOINCREMENT, key VARCHAR(200) NOT NULL UNIQUE, value TEXT, type VARCHAR(20));
CREATE TABLE heartbeat (id INTEGER PRIMARY KEY AUTOINCREMENT, monitor_id INTEGER NOT NULL, status SMALLINT, msg TEXT, time DATETIME NOT NULL, ping INTEGER, duration INTEGER DEFAULT 0, down_count INTEGER DEFAULT 0);
CREATE TABLE status_page (
  id INTEGER PRIMARY KEY AUTOINCREMENT, slug VARCHAR(255) NOT NULL UNIQUE, title VARCHAR(255) NOT NULL,
  description TEXT, icon VARCHAR(255) NOT NULL, theme VARCHAR(30) NOT NULL, published BOOLEAN NOT NULL DEFAULT 1,
  search_engine_index BOOLEAN NOT NULL DEFAULT 1, show_tags BOOLEAN NOT NULL DEFAULT 0, password VARCHAR,
  created_date DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, modified_date DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
  footer_text TEXT, custom_css TEXT, show_powered_by BOOLEAN NOT NULL DEFAULT 1, %ANALYTICS% VARCHAR,
  show_certificate_expiry BOOLEAN DEFAULT 0 NOT NULL
);
CREATE TABLE status_page_cname (id INTEGER PRIMARY KEY AUTOINCREMENT, status_page_id INTEGER NOT NULL REFERENCES status_page(id) ON DELETE CASCADE, domain VARCHAR NOT NULL UNIQUE);
CREATE TABLE "group" (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(255) NOT NULL, created_date DATETIME DEFAULT (DATETIME('now')) NOT NULL, public BOOLEAN DEFAULT 0 NOT NULL, active BOOLEAN DEFAULT 1 NOT NULL, weight BOOLEAN NOT NULL DEFAULT 1000, status_page_id INTEGER);
CREATE TABLE monitor_group (id INTEGER PRIMARY KEY AUTOINCREMENT, monitor_id INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE, group_id INTEGER NOT NULL REFERENCES "group"(id) ON DELETE CASCADE, weight BOOLEAN NOT NULL DEFAULT 1000, send_url BOOLEAN DEFAULT 0 NOT NULL);
CREATE TABLE incident (id INTEGER PRIMARY KEY AUTOINCREMENT, title VARCHAR(255) NOT NULL, content TEXT NOT NULL, style VARCHAR(30) DEFAULT 'warning' NOT NULL, created_date DATETIME DEFAULT (DATETIME('now')) NOT NULL, last_updated_date DATETIME, pin BOOLEAN DEFAULT 1 NOT NULL, active BOOLEAN DEFAULT 1 NOT NULL, status_page_id INTEGER);
CREATE TABLE maintenance (id INTEGER PRIMARY KEY AUTOINCREMENT, title VARCHAR(150) NOT NULL, description TEXT NOT NULL, user_id INTEGER, active BOOLEAN NOT NULL DEFAULT 1, strategy VARCHAR(50) NOT NULL DEFAULT 'single', start_date DATETIME, end_date DATETIME, start_time TIME, end_time TIME, weekdays VARCHAR2(250) DEFAULT '[]', days_of_month TEXT DEFAULT '[]', interval_day INTEGER, cron TEXT, timezone VARCHAR(255), duration INTEGER);
CREATE TABLE monitor_maintenance (id INTEGER PRIMARY KEY AUTOINCREMENT, monitor_id INTEGER NOT NULL REFERENCES monitor(id) ON DELETE CASCADE, maintenance_id INTEGER NOT NULL REFERENCES maintenance(id) ON DELETE CASCADE);
CREATE TABLE maintenance_status_page (id INTEGER PRIMARY KEY AUTOINCREMENT, status_page_id INTEGER NOT NULL REFERENCES status_page(id) ON DELETE CASCADE, maintenance_id INTEGER NOT NULL REFERENCES maintenance(id) ON DELETE CASCADE);
`;

const TWO_X = `
CREATE TABLE knex_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(255), batch INTEGER, migration_time DATETIME);
CREATE TABLE knex_migrations_lock ("index" INTEGER PRIMARY KEY AUTOINCREMENT, is_locked INTEGER);
INSERT INTO knex_migrations (name, batch, migration_time) VALUES ('2023-08-16-0000-create-uptime.js', 1, '2025-10-20 10:00:00');
CREATE TABLE stat_daily (id INTEGER PRIMARY KEY AUTOINCREMENT, monitor_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, ping FLOAT, up INTEGER NOT NULL, down INTEGER NOT NULL);
ALTER TABLE monitor ADD mqtt_check_type VARCHAR(255) NOT NULL DEFAULT 'keyword';
ALTER TABLE monitor ADD json_path_operator VARCHAR(255);
ALTER TABLE monitor ADD cache_bust BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE monitor ADD conditions TEXT NOT NULL DEFAULT '[]';
ALTER TABLE status_page ADD auto_refresh_interval INTEGER DEFAULT 300;
ALTER TABLE maintenance ADD last_start_date DATETIME;
`;

/** Writes an Uptime Kuma database of `version` at `path`, with `seed` run on it (SQL of the test's rows). */
export function makeKumaDb(path: string, version: "1.23" | "2.x", seed: string): void {
  const db = new SQLite(path);
  try {
    db.pragma("journal_mode = WAL");
    const analytics = version === "2.x" ? "analytics_id" : "google_analytics_tag_id";
    db.exec(MONITOR_1_23.replace("%ANALYTICS%", analytics));
    if (version === "2.x") db.exec(TWO_X);
    db.exec("INSERT INTO setting (key, value, type) VALUES ('jwtSecret', 'kuma-install-secret', NULL)");
    db.exec(seed);
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}

import { type Kysely, sql } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";

type Dialect = "sqlite" | "postgres";
type ColumnBuilder = import("kysely").ColumnDefinitionBuilder;

/**
 * Migrations in order; never edit one that has shipped. Each runs in a transaction on both dialects: Kysely's
 * migrator opens one on PostgreSQL, and `atomically` opens one on SQLite, where the migrator does not.
 */
function migrations(dialect: Dialect): Record<string, Migration> {
  const serial = dialect === "postgres" ? "serial" : "integer";
  const autoId = (col: import("kysely").ColumnDefinitionBuilder) =>
    dialect === "postgres" ? col.primaryKey() : col.primaryKey().autoIncrement();
  return {
    "0001_foundation": {
      up: atomically(dialect, async (db) => {
        await db.schema
          .createTable("meta")
          .addColumn("key", "text", (c) => c.primaryKey())
          .addColumn("value", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("workspaces")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("plan", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("users")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("email", "text", (c) => c.notNull().unique())
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("role", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("api_tokens")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("token_hash", "text", (c) => c.notNull().unique())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("last_used_at", "text")
          .addColumn("revoked_at", "text")
          .execute();
        await db.schema
          .createTable("sites")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("url", "text", (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("method", "text", (c) => c.notNull())
          .addColumn("headers", "text", (c) => c.notNull())
          .addColumn("check_interval", "integer", (c) => c.notNull())
          .addColumn("timeout", "integer", (c) => c.notNull())
          .addColumn("parent_group", "text", (c) => c.notNull())
          .addColumn("pause", "integer", (c) => c.notNull())
          .addColumn("notes", "text", (c) => c.notNull())
          .addColumn("success_codes", "text", (c) => c.notNull())
          .addColumn("error_codes", "text", (c) => c.notNull())
          .addColumn("enabled", "integer", (c) => c.notNull())
          .addColumn("regions", "text", (c) => c.notNull())
          .addColumn("has_certificate_error", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("is_frozen", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("legacy_status", "text", (c) => c.notNull())
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("health_summary", "text", (c) => c.notNull())
          .addColumn("last_check_time", "text")
          .addColumn("last_response_ms", "integer")
          .addColumn("ssl_info", "text")
          .addColumn("domain_info", "text")
          .addColumn("domain_expiration", "text")
          .addColumn("wordpress", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("sites_workspace").on("sites").columns(["workspace_id", "created_at"]).execute();
        await db.schema
          .createTable("daily_stats")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
          .addColumn("day", "text", (c) => c.notNull())
          .addColumn("checks_total", "integer", (c) => c.notNull())
          .addColumn("checks_up", "integer", (c) => c.notNull())
          .addColumn("downtime_minutes", "integer", (c) => c.notNull())
          .addColumn("version", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .addUniqueConstraint("daily_stats_site_day", ["site_id", "day"])
          .execute();
        await db.schema
          .createTable("status_pages")
          .addColumn("id", serial, autoId)
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("slug", "text", (c) => c.notNull().unique())
          .addColumn("description", "text", (c) => c.notNull())
          .addColumn("visibility", "text", (c) => c.notNull())
          .addColumn("password_hash", "text")
          .addColumn("theme", "text", (c) => c.notNull())
          .addColumn("display", "text", (c) => c.notNull())
          .addColumn("custom_domain", "text", (c) => c.unique())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("status_pages_workspace")
          .on("status_pages")
          .columns(["workspace_id", "created_at"])
          .execute();
        await db.schema
          .createTable("status_page_items")
          .addColumn("id", serial, autoId)
          .addColumn("page_id", "integer", (c) => c.notNull().references("status_pages.id").onDelete("cascade"))
          .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
          .addColumn("label", "text", (c) => c.notNull())
          .addColumn("visible", "integer", (c) => c.notNull())
          .addColumn("position", "integer", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addUniqueConstraint("status_page_items_page_site", ["page_id", "site_id"])
          .execute();
        await db.schema.createIndex("status_page_items_site").on("status_page_items").column("site_id").execute();
        await db.schema
          .createTable("incidents")
          .addColumn("id", serial, autoId)
          .addColumn("page_id", "integer", (c) => c.notNull().references("status_pages.id").onDelete("cascade"))
          .addColumn("title", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("started_at", "text", (c) => c.notNull())
          .addColumn("resolved_at", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("incidents_page").on("incidents").columns(["page_id", "started_at"]).execute();
        await db.schema
          .createTable("incident_updates")
          .addColumn("id", serial, autoId)
          .addColumn("incident_id", "integer", (c) => c.notNull().references("incidents.id").onDelete("cascade"))
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("message", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("incident_updates_incident").on("incident_updates").column("incident_id").execute();
      }),
    },
    "0002_engine": {
      up: atomically(dialect, async (db) => {
        const addToSites = [
          ["slow_threshold_ms", "integer", (c: ColumnBuilder) => c.notNull().defaultTo(2000)],
          ["conditions", "text", (c: ColumnBuilder) => c.notNull().defaultTo("[]")],
          ["judged_at", "text", (c: ColumnBuilder) => c],
          ["rejudge_at", "text", (c: ColumnBuilder) => c],
          ["conditions_at", "text", (c: ColumnBuilder) => c],
          ["domain_checked_at", "text", (c: ColumnBuilder) => c],
        ] as const;
        for (const [name, type, build] of addToSites) {
          await db.schema.alterTable("sites").addColumn(name, type, build).execute();
        }
        await db.schema.createIndex("sites_rejudge").on("sites").column("rejudge_at").execute();
        // One row per site and region: when that region checks it next, who holds the lease, and its last results.
        await db.schema
          .createTable("site_checks")
          .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
          .addColumn("region", "text", (c) => c.notNull())
          .addColumn("next_check_at", "text", (c) => c.notNull())
          .addColumn("lease_owner", "text")
          .addColumn("lease_until", "text")
          .addColumn("recent", "text", (c) => c.notNull().defaultTo("[]"))
          .addPrimaryKeyConstraint("site_checks_pk", ["site_id", "region"])
          .execute();
        await db.schema.createIndex("site_checks_due").on("site_checks").columns(["region", "next_check_at"]).execute();
        await db.schema
          .createTable("check_results")
          // 64-bit on PostgreSQL: 10,000 sites a minute would use up a 32-bit sequence in about five months.
          .addColumn("id", dialect === "postgres" ? "bigserial" : "integer", autoId)
          .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
          .addColumn("region", "text", (c) => c.notNull())
          .addColumn("at", "text", (c) => c.notNull())
          .addColumn("ok", "integer", (c) => c.notNull())
          .addColumn("slow", "integer", (c) => c.notNull())
          .addColumn("status_code", "integer")
          .addColumn("response_ms", "integer")
          .addColumn("error", "text")
          .addColumn("timings", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("check_results_site").on("check_results").columns(["site_id", "at"]).execute();
        await db.schema.createIndex("check_results_at").on("check_results").column("at").execute();
        const addToStats = [
          ["downtime_ms", "integer"],
          ["slow_count", "integer"],
          ["response_count", "integer"],
          ["response_ms_sum", "double precision"],
        ] as const;
        for (const [name, type] of addToStats) {
          await db.schema
            .alterTable("daily_stats")
            .addColumn(name, type, (c) => c.notNull().defaultTo(0))
            .execute();
        }
        // Automatic incidents belong to a site; manual ones have none.
        await db.schema
          .alterTable("incidents")
          .addColumn("site_id", "text", (c) => c.references("sites.id").onDelete("set null"))
          .execute();
        await db.schema
          .alterTable("incidents")
          .addColumn("source", "text", (c) => c.notNull().defaultTo("manual"))
          .execute();
        await db.schema.createIndex("incidents_site").on("incidents").columns(["site_id", "resolved_at"]).execute();
      }),
    },
    "0003_anon": {
      up: atomically(dialect, async (db) => {
        // Domain snapshots asked for by anyone: the job and, once done, its result. Leased while running, so a
        // restart (or a crashed process) gives a running job back to the queue.
        await db.schema
          .createTable("anon_snapshots")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("domain", "text", (c) => c.notNull())
          .addColumn("status", "text", (c) => c.notNull())
          .addColumn("result", "text")
          .addColumn("error", "text")
          .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("lease_until", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("finished_at", "text")
          .execute();
        await db.schema
          .createIndex("anon_snapshots_queue")
          .on("anon_snapshots")
          .columns(["status", "created_at"])
          .execute();
        await db.schema
          .createIndex("anon_snapshots_domain")
          .on("anon_snapshots")
          .columns(["domain", "created_at"])
          .execute();
        // 24-hour reports: pending until the address confirms, then active (checked every interval until ends_at),
        // then sending and sent; or cancelled, or expired unconfirmed. Tokens are stored as SHA-256 hashes.
        await db.schema
          .createTable("anon_reports")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("domain", "text", (c) => c.notNull())
          .addColumn("email", "text", (c) => c.notNull())
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("confirm_hash", "text", (c) => c.notNull().unique())
          .addColumn("unsubscribe_hash", "text", (c) => c.notNull().unique())
          .addColumn("client_key", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("confirm_by", "text", (c) => c.notNull())
          .addColumn("confirmed_at", "text")
          .addColumn("next_check_at", "text")
          .addColumn("ends_at", "text")
          .addColumn("lease_until", "text")
          .addColumn("sent_at", "text")
          .addColumn("error", "text")
          .execute();
        await db.schema
          .createIndex("anon_reports_due")
          .on("anon_reports")
          .columns(["state", "next_check_at"])
          .execute();
        await db.schema.createIndex("anon_reports_email").on("anon_reports").columns(["email", "created_at"]).execute();
        await db.schema
          .createTable("anon_report_checks")
          .addColumn("id", serial, autoId)
          .addColumn("report_id", "text", (c) => c.notNull().references("anon_reports.id").onDelete("cascade"))
          .addColumn("at", "text", (c) => c.notNull())
          .addColumn("ok", "integer", (c) => c.notNull())
          .addColumn("status_code", "integer")
          .addColumn("response_ms", "integer")
          .addColumn("error", "text")
          .addUniqueConstraint("anon_report_checks_once", ["report_id", "at"])
          .execute();
      }),
    },
    "0004_incident_items": {
      up: atomically(dialect, async (db) => {
        // The items an owner names as affected by an incident; gone with either. An automatic incident's item is
        // its site's, so it needs no row here.
        await db.schema
          .createTable("incident_items")
          .addColumn("incident_id", "integer", (c) => c.notNull().references("incidents.id").onDelete("cascade"))
          .addColumn("item_id", "integer", (c) => c.notNull().references("status_page_items.id").onDelete("cascade"))
          .addPrimaryKeyConstraint("incident_items_pk", ["incident_id", "item_id"])
          .execute();
        await db.schema.createIndex("incident_items_item").on("incident_items").column("item_id").execute();
      }),
    },
    "0005_page_images": {
      up: atomically(dialect, async (db) => {
        // A page's logo and favicon: an https address its owner gave, or the path of an uploaded image
        // (/assets/<sha-256>.<ext>) whose bytes are in page_images, one row per page and kind, gone with the page.
        await db.schema.alterTable("status_pages").addColumn("logo", "text").execute();
        await db.schema.alterTable("status_pages").addColumn("favicon", "text").execute();
        await db.schema
          .createTable("page_images")
          .addColumn("page_id", "integer", (c) => c.notNull().references("status_pages.id").onDelete("cascade"))
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("hash", "text", (c) => c.notNull())
          .addColumn("content_type", "text", (c) => c.notNull())
          .addColumn("bytes", dialect === "postgres" ? "bytea" : "blob", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("page_images_pk", ["page_id", "kind"])
          .execute();
        await db.schema.createIndex("page_images_hash").on("page_images").column("hash").execute();
      }),
    },
    "0006_alert_channels": {
      up: atomically(dialect, async (db) => {
        // Where a workspace's alerts go. config is the type's settings as JSON, sealed (server/accounts/sealed.ts):
        // webhook addresses and tokens are credentials. target is what answers show of it, masked.
        await db.schema
          .createTable("alert_channels")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("type", "text", (c) => c.notNull())
          .addColumn("config", "text", (c) => c.notNull())
          .addColumn("target", "text", (c) => c.notNull())
          .addColumn("enabled", "integer", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("alert_channels_workspace")
          .on("alert_channels")
          .columns(["workspace_id", "created_at"])
          .execute();
      }),
    },
    "0007_alert_outbox": {
      up: atomically(dialect, async (db) => {
        // When a site's outage began (its state turned unhealthy): a recovery's alert says how long it lasted.
        await db.schema.alterTable("sites").addColumn("down_since", "text").execute();
        // A site down already is not news: its outage counts from when it was last judged.
        await sql`UPDATE sites SET down_since = judged_at WHERE state = 'unhealthy'`.execute(db);
        // Which channels hear which events: a workspace's default, and a site's own rule in its place. channels is
        // "all" (every enabled channel) or a JSON array of channel ids; events a JSON object of booleans.
        await db.schema
          .createTable("alert_defaults")
          .addColumn("workspace_id", "text", (c) => c.primaryKey().references("workspaces.id").onDelete("cascade"))
          .addColumn("channels", "text", (c) => c.notNull())
          .addColumn("events", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createTable("site_alert_rules")
          .addColumn("site_id", "text", (c) => c.primaryKey().references("sites.id").onDelete("cascade"))
          .addColumn("channels", "text", (c) => c.notNull())
          .addColumn("events", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        // One delivery to make per event and channel, written with the state change that caused it; claimed with a
        // lease (lease_owner, lease_until) by a sender, which records each attempt in alert_attempts.
        await db.schema
          .createTable("alert_outbox")
          .addColumn("id", serial, autoId)
          .addColumn("event_id", "text", (c) => c.notNull().unique())
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("channel_id", "text", (c) => c.notNull().references("alert_channels.id").onDelete("cascade"))
          .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
          .addColumn("type", "text", (c) => c.notNull())
          .addColumn("event", "text", (c) => c.notNull())
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("attempts", "integer", (c) => c.notNull())
          .addColumn("next_attempt_at", "text", (c) => c.notNull())
          .addColumn("lease_owner", "text")
          .addColumn("lease_until", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("finished_at", "text")
          .addColumn("last_status", "integer")
          .addColumn("last_error", "text")
          .execute();
        await db.schema
          .createIndex("alert_outbox_due")
          .on("alert_outbox")
          .columns(["state", "next_attempt_at"])
          .execute();
        await db.schema.createIndex("alert_outbox_channel").on("alert_outbox").columns(["channel_id", "id"]).execute();
        await db.schema.createIndex("alert_outbox_site").on("alert_outbox").columns(["site_id", "id"]).execute();
        await db.schema
          .createTable("alert_attempts")
          .addColumn("id", serial, autoId)
          .addColumn("outbox_id", "integer", (c) => c.notNull().references("alert_outbox.id").onDelete("cascade"))
          .addColumn("at", "text", (c) => c.notNull())
          .addColumn("ok", "integer", (c) => c.notNull())
          .addColumn("status_code", "integer")
          .addColumn("error", "text")
          .addColumn("response_ms", "integer", (c) => c.notNull())
          .addColumn("response", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("alert_attempts_outbox").on("alert_attempts").column("outbox_id").execute();
      }),
    },
    "0008_expiry_reminders": {
      up: atomically(dialect, async (db) => {
        // The certificate's and the domain's expiry as last judged, with its days left (JSON): a reminder goes out
        // once per reminder day crossed, and a later expiry is a renewal.
        await db.schema.alterTable("sites").addColumn("reminded", "text").execute();
      }),
    },
    "0009_maintenance": {
      up: atomically(dialect, async (db) => {
        await db.schema.alterTable("sites").addColumn("alerted_at", "text").execute();
        // An automatic incident now resolves with the outage's confirmed return, which needs down_since: a site with
        // one still open (left by a recovery the incident missed, or from before down_since) gets it, so that its
        // next return resolves it.
        await sql`UPDATE sites SET down_since = COALESCE(judged_at, updated_at)
          WHERE down_since IS NULL AND id IN (
            SELECT site_id FROM incidents WHERE source = 'automatic' AND resolved_at IS NULL AND site_id IS NOT NULL)`.execute(
          db,
        );
        await sql`UPDATE sites SET alerted_at = down_since`.execute(db);
        await db.schema
          .alterTable("sites")
          .addColumn("in_maintenance", "integer", (c) => c.notNull().defaultTo(0))
          .execute();
        // A repeat interval for a site that stays down (null: never repeat).
        await db.schema.alterTable("alert_defaults").addColumn("repeat_minutes", "integer").execute();
        await db.schema.alterTable("site_alert_rules").addColumn("repeat_minutes", "integer").execute();
        await db.schema
          .createTable("maintenance_windows")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("title", "text", (c) => c.notNull())
          .addColumn("description", "text", (c) => c.notNull())
          .addColumn("start", "text", (c) => c.notNull())
          .addColumn("time_zone", "text", (c) => c.notNull())
          .addColumn("duration_minutes", "integer", (c) => c.notNull())
          .addColumn("recurrence", "text")
          .addColumn("refill_at", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("updated_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("maintenance_windows_refill")
          .on("maintenance_windows")
          .column("refill_at")
          .execute();
        await db.schema
          .createIndex("maintenance_windows_workspace")
          .on("maintenance_windows")
          .columns(["workspace_id", "created_at"])
          .execute();
        await db.schema
          .createTable("maintenance_window_sites")
          .addColumn("window_id", "text", (c) => c.notNull().references("maintenance_windows.id").onDelete("cascade"))
          .addColumn("site_id", "text", (c) => c.notNull().references("sites.id").onDelete("cascade"))
          .addPrimaryKeyConstraint("maintenance_window_sites_pk", ["window_id", "site_id"])
          .execute();
        await db.schema
          .createIndex("maintenance_window_sites_site")
          .on("maintenance_window_sites")
          .column("site_id")
          .execute();
        await db.schema
          .createTable("maintenance_occurrences")
          .addColumn("window_id", "text", (c) => c.notNull().references("maintenance_windows.id").onDelete("cascade"))
          .addColumn("starts_at", "text", (c) => c.notNull())
          .addColumn("ends_at", "text", (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex("maintenance_occurrences_window")
          .on("maintenance_occurrences")
          .columns(["window_id", "ends_at"])
          .execute();
      }),
    },
    "0010_sessions": {
      up: atomically(dialect, async (db) => {
        // A user signs in to the dashboard with a password (scrypt, as status-page passwords) and, when enabled, a
        // TOTP code; the secret is sealed with the data directory's key (accounts/sealed.ts).
        await db.schema.alterTable("users").addColumn("password_hash", "text").execute();
        await db.schema.alterTable("users").addColumn("totp_secret", "text").execute();
        await db.schema.alterTable("users").addColumn("password_changed_at", "text").execute();
        // A signed-in browser: the cookie's SHA-256, its CSRF token, and when it was made and last used.
        await db.schema
          .createTable("sessions")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
          .addColumn("csrf_token", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("last_seen_at", "text", (c) => c.notNull())
          .execute();
        await db.schema.createIndex("sessions_user").on("sessions").column("user_id").execute();
        // One-time links by e-mail or on the console: setting a first password, resetting one, joining a workspace.
        await db.schema
          .createTable("account_links")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("token_hash", "text", (c) => c.notNull().unique())
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("user_id", "text", (c) => c.references("users.id").onDelete("cascade"))
          .addColumn("email", "text", (c) => c.notNull())
          .addColumn("role", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("expires_at", "text", (c) => c.notNull())
          .addColumn("used_at", "text")
          .execute();
        await db.schema
          .createIndex("account_links_workspace")
          .on("account_links")
          .columns(["workspace_id", "kind"])
          .execute();
      }),
    },
    "0011_calm_alerts": {
      // Issue 27, part 1: flapping, the confirmation threshold and the cool-down of automatic incidents.
      up: atomically(dialect, async (db) => {
        // A rule's confirmation threshold (failed checks in a row before the down alert), the cool-down within which
        // an automatic incident re-opens, and its flapping detection (JSON of AlertRule.flapping; 'null' is off).
        for (const table of ["alert_defaults", "site_alert_rules"]) {
          await db.schema
            .alterTable(table)
            .addColumn("confirmations", "integer", (c) => c.notNull().defaultTo(2))
            .execute();
          await db.schema
            .alterTable(table)
            .addColumn("cooldown_minutes", "integer", (c) => c.notNull().defaultTo(15))
            .execute();
          await db.schema
            .alterTable(table)
            .addColumn("flapping", "text", (c) =>
              c.notNull().defaultTo('{"outages":3,"windowMinutes":30,"quietMinutes":30}'),
            )
            .execute();
        }
        // A site's flapping as the engine follows it (JSON: Flap in engine/judge.ts); null when it is not flapping.
        await db.schema.alterTable("sites").addColumn("flap", "text").execute();
        // When the engine publishes an automatic incident (a page publishing after a delay); null: not by time.
        await db.schema.alterTable("incidents").addColumn("publish_at", "text").execute();
      }),
    },
    "0012_incident_model": {
      up: atomically(dialect, async (db) => {
        // An incident's impact (Statuspage's none, minor, major, critical) and when visitors could first read it:
        // null while it is a draft or waits for the page's publication delay (owner-only until then).
        await db.schema
          .alterTable("incidents")
          .addColumn("impact", "text", (c) => c.notNull().defaultTo("none"))
          .execute();
        await db.schema.alterTable("incidents").addColumn("published_at", "text").execute();
        await sql`UPDATE incidents SET published_at = created_at`.execute(db);
        await sql`UPDATE incidents SET impact = 'critical' WHERE source = 'automatic'`.execute(db);
        // What an open incident says of each service it names (partial_outage, major_outage, ...).
        await db.schema
          .alterTable("incident_items")
          .addColumn("status", "text", (c) => c.notNull().defaultTo("major_outage"))
          .execute();
        // The owner's detail of an automatic update (the failed check's error); visitors read only the message.
        // An owner's incident named its services without saying more: they keep showing what the engine sees.
        await sql`UPDATE incident_items SET status = 'operational' WHERE incident_id IN (SELECT id FROM incidents WHERE source <> 'automatic')`.execute(
          db,
        );
        await db.schema.alterTable("incident_updates").addColumn("detail", "text").execute();
        // The page's incident policy (contract IncidentPolicy, JSON): how automatic incidents are published, and
        // the template of their words; '{}' is the defaults.
        await db.schema
          .alterTable("status_pages")
          .addColumn("incident_policy", "text", (c) => c.notNull().defaultTo("{}"))
          .execute();
      }),
    },
    "0013_site_tags": {
      up: atomically(dialect, async (db) => {
        // A site's tags, JSON text in the order given. A workspace's sites are read by its index and matched on
        // the tag's quoted form (SiteQueries.list): thousands of sites need no table of their own.
        await db.schema
          .alterTable("sites")
          .addColumn("tags", "text", (c) => c.notNull().defaultTo("[]"))
          .execute();
      }),
    },
    "0014_maintenance_end": {
      up: atomically(dialect, async (db) => {
        // When an owner ended a window's occurrence early: every occurrence beginning before it ends by then, so
        // that expanding the window again (a refill, an edit) does not bring the ended one back.
        await db.schema.alterTable("maintenance_windows").addColumn("ended_at", "text").execute();
      }),
    },
    "0015_monitor_kinds": {
      up: atomically(dialect, async (db) => {
        // A site's settings of its kind (contract/monitor.ts: assertions, dns, push), JSON; '{}' is the defaults,
        // so every existing site stays an http(s) check with its settings unchanged (its kind is its url's scheme).
        await db.schema
          .alterTable("sites")
          .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
          .execute();
        // A push site's token (SHA-256, hex; shown once), since when silence counts, and its last call: written
        // by the push route, coalesced (api/push.ts), read by the push checker.
        await db.schema.alterTable("sites").addColumn("push_token_hash", "text").execute();
        await db.schema.alterTable("sites").addColumn("push_since", "text").execute();
        await db.schema.alterTable("sites").addColumn("push_last_at", "text").execute();
        await db.schema.alterTable("sites").addColumn("push_last_status", "text").execute();
        await db.schema.alterTable("sites").addColumn("push_last_message", "text").execute();
        await db.schema.alterTable("sites").addColumn("push_last_ms", "integer").execute();
        await db.schema.createIndex("sites_push_token").unique().on("sites").column("push_token_hash").execute();
      }),
    },
    "0016_check_found": {
      up: atomically(dialect, async (db) => {
        // What a passing check saw, in words (a DNS check's answer): shown beside the result, null for other kinds.
        await db.schema.alterTable("check_results").addColumn("found", "text").execute();
      }),
    },
    "0017_subscribers": {
      up: atomically(dialect, async (db) => {
        // A page's subscription settings (contract SubscriptionSettings, JSON); '{}' is off.
        await db.schema
          .alterTable("status_pages")
          .addColumn("subscriptions", "text", (c) => c.notNull().defaultTo("{}"))
          .execute();
        // A page's subscribers. Links carry tokens derived from a nonce under the server's key (accounts/sealed.ts);
        // only the nonce and the token's hash are stored. access_key: the page's password hash when they signed up,
        // so that a changed password (or a page made private) stops notices to those who no longer have access.
        await db.schema
          .createTable("subscribers")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("page_id", "integer", (c) => c.notNull().references("status_pages.id").onDelete("cascade"))
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("address", "text", (c) => c.notNull())
          .addColumn("items", "text", (c) => c.notNull().defaultTo("[]"))
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("access_key", "text")
          // A URL kind's delivery settings, sealed: {url, signingSecret}; address holds the URL masked.
          .addColumn("secret", "text")
          .addColumn("confirm_nonce", "text")
          .addColumn("confirm_hash", "text")
          .addColumn("confirm_expires_at", "text")
          .addColumn("confirm_sent", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("confirm_sent_at", "text")
          .addColumn("manage_nonce", "text", (c) => c.notNull())
          .addColumn("manage_hash", "text", (c) => c.notNull())
          .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("suspended_reason", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("confirmed_at", "text")
          .execute();
        await db.schema
          .createIndex("subscribers_address")
          .unique()
          .on("subscribers")
          .columns(["page_id", "kind", "address"])
          .execute();
        await db.schema.createIndex("subscribers_confirm").unique().on("subscribers").column("confirm_hash").execute();
        await db.schema.createIndex("subscribers_manage").unique().on("subscribers").column("manage_hash").execute();
        // The sweep that tells of one-off maintenance beginning and ending reads the occurrences of the last day.
        await db.schema
          .createIndex("maintenance_occurrences_ends")
          .on("maintenance_occurrences")
          .column("ends_at")
          .execute();
        // The fan-out reads a page's confirmed subscribers in id order, a batch after its cursor.
        await db.schema
          .createIndex("subscribers_fan_out")
          .on("subscribers")
          .columns(["page_id", "state", "id"])
          .execute();
        // What subscribers are told, written in the transaction of the incident or maintenance change that caused
        // it (or by the sweep that sees an occurrence begin or end): one row per event (key: unique per page),
        // fanned out to deliveries afterwards, subscriber by subscriber (cursor). An incident's notice names the
        // update it tells; a maintenance notice names its window and the occurrence's times.
        await db.schema
          .createTable("subscriber_notices")
          .addColumn("id", serial, (c) => autoId(c))
          .addColumn("page_id", "integer", (c) => c.notNull().references("status_pages.id").onDelete("cascade"))
          .addColumn("key", "text", (c) => c.notNull())
          .addColumn("event", "text", (c) => c.notNull())
          .addColumn("incident_id", "integer", (c) => c.references("incidents.id").onDelete("cascade"))
          .addColumn("update_id", "integer", (c) => c.references("incident_updates.id").onDelete("cascade"))
          .addColumn("window_id", "text", (c) => c.references("maintenance_windows.id").onDelete("cascade"))
          .addColumn("starts_at", "text")
          .addColumn("ends_at", "text")
          .addColumn("items", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("fan_cursor", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("fanned_out_at", "text")
          .execute();
        await db.schema
          .createIndex("subscriber_notices_key")
          .unique()
          .on("subscriber_notices")
          .columns(["page_id", "key"])
          .execute();
        await db.schema
          .createIndex("subscriber_notices_waiting")
          .on("subscriber_notices")
          .columns(["fanned_out_at", "id"])
          .execute();
        // One row per subscriber and message (a notice, or a confirmation: notice_id 0), delivered like alerts:
        // leased, retried with backoff. The key (notice:<id>, confirm:<nonce>) makes each subscriber's copy of a
        // message one row, whoever fans out and however often.
        await db.schema
          .createTable("subscriber_deliveries")
          .addColumn("id", serial, (c) => autoId(c))
          .addColumn("subscriber_id", "text", (c) => c.notNull().references("subscribers.id").onDelete("cascade"))
          .addColumn("notice_id", "integer", (c) => c.notNull())
          .addColumn("key", "text", (c) => c.notNull())
          .addColumn("confirm_nonce", "text")
          .addColumn("state", "text", (c) => c.notNull())
          .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
          .addColumn("next_attempt_at", "text", (c) => c.notNull())
          .addColumn("lease_owner", "text")
          .addColumn("lease_until", "text")
          .addColumn("created_at", "text", (c) => c.notNull())
          .addColumn("finished_at", "text")
          .addColumn("last_error", "text")
          .execute();
        await db.schema
          .createIndex("subscriber_deliveries_once")
          .unique()
          .on("subscriber_deliveries")
          .columns(["subscriber_id", "key"])
          .execute();
        // Pruning keeps a notice until the last of its deliveries is gone.
        await db.schema
          .createIndex("subscriber_deliveries_notice")
          .on("subscriber_deliveries")
          .column("notice_id")
          .execute();
        await db.schema
          .createIndex("subscriber_deliveries_due")
          .on("subscriber_deliveries")
          .columns(["state", "next_attempt_at"])
          .execute();
      }),
    },
    "0018_resolution_hold": {
      up: atomically(dialect, async (db) => {
        // An automatic incident's resolution is told to subscribers once the service has stayed up this long (the
        // engine's re-opening within it tells nothing): when that is due; null when nothing waits.
        await db.schema.alterTable("incidents").addColumn("resolution_due_at", "text").execute();
        await db.schema.createIndex("incidents_resolution_due").on("incidents").column("resolution_due_at").execute();
      }),
    },
    "0019_groups": {
      up: atomically(dialect, async (db) => {
        // A page's component groups (two levels, as Statuspage): a group sits among the page's ungrouped items, its
        // position in the same order as theirs; a grouped item's position orders it within its group. collapsed is
        // the owner's default for visitors (a group with a member at fault is shown open whatever it says).
        await db.schema
          .createTable("status_page_groups")
          .addColumn("id", serial, autoId)
          .addColumn("page_id", "integer", (c) => c.notNull().references("status_pages.id").onDelete("cascade"))
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
          .addColumn("position", "integer", (c) => c.notNull())
          .addColumn("collapsed", "integer", (c) => c.notNull().defaultTo(1))
          .addColumn("created_at", "text", (c) => c.notNull())
          .addUniqueConstraint("status_page_groups_page_name", ["page_id", "name"])
          .execute();
        // Deleting a group leaves its items on the page, ungrouped (the store gives them the group's place first).
        await db.schema
          .alterTable("status_page_items")
          .addColumn("group_id", "integer", (c) => c.references("status_page_groups.id").onDelete("set null"))
          .execute();
      }),
    },
    "0020_import_origins": {
      up: atomically(dialect, async (db) => {
        // What each import created, by the source's own key for it: importing the same file again finds its
        // objects here and creates nothing twice. object_id is the site's, page's or window's id (text for all).
        await db.schema
          .createTable("import_origins")
          .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
          .addColumn("source", "text", (c) => c.notNull())
          .addColumn("key", "text", (c) => c.notNull())
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("object_id", "text", (c) => c.notNull())
          .addColumn("created_at", "text", (c) => c.notNull())
          .addPrimaryKeyConstraint("import_origins_pk", ["workspace_id", "source", "key"])
          .execute();
      }),
    },
  };
}

function atomically(dialect: Dialect, up: (db: Kysely<unknown>) => Promise<void>) {
  return (db: Kysely<unknown>) => (dialect === "sqlite" ? db.transaction().execute(up) : up(db));
}

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations() {
    return migrations(this.dialect);
  }
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticProvider(dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

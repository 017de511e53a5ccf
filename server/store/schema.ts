import type { Generated, Selectable } from "kysely";

/**
 * The tables, as both dialects hold them. Portable on purpose: timestamps are ISO 8601 UTC text (they sort as
 * text), booleans are 0/1 integers, and lists and objects are JSON text.
 */
export interface Database {
  meta: { key: string; value: string };
  workspaces: { id: string; name: string; plan: string; created_at: string };
  users: {
    id: string;
    email: string;
    workspace_id: string;
    role: string;
    created_at: string;
    password_hash: string | null;
    totp_secret: string | null;
    password_changed_at: string | null;
  };
  sessions: { id: string; user_id: string; csrf_token: string; created_at: string; last_seen_at: string };
  account_links: {
    id: string;
    kind: string;
    token_hash: string;
    workspace_id: string;
    user_id: string | null;
    email: string;
    role: string | null;
    created_at: string;
    expires_at: string;
    used_at: string | null;
  };
  api_tokens: {
    id: string;
    user_id: string;
    name: string;
    token_hash: string;
    created_at: string;
    last_used_at: string | null;
    revoked_at: string | null;
  };
  sites: {
    id: string;
    workspace_id: string;
    version: number;
    url: string;
    name: string;
    method: string;
    headers: string;
    check_interval: number;
    timeout: number;
    parent_group: string;
    pause: number;
    notes: string;
    success_codes: string;
    error_codes: string;
    enabled: number;
    regions: string;
    has_certificate_error: number;
    is_frozen: number;
    legacy_status: string;
    state: string;
    health_summary: string;
    last_check_time: string | null;
    last_response_ms: number | null;
    ssl_info: string | null;
    domain_info: string | null;
    domain_expiration: string | null;
    wordpress: string | null;
    created_at: string;
    updated_at: string;
    slow_threshold_ms: Generated<number>;
    conditions: Generated<string>;
    judged_at: string | null;
    /** When its outage began: set as it turns unhealthy, cleared as it leaves. */
    down_since: string | null;
    /** The expiries as last judged, for reminders: { certificate?, domain? } of { expiresAt, daysLeft } (JSON). */
    reminded: string | null;
    /** When it last alerted that it is down (the first time, or a repeat): repeats count from it. */
    alerted_at: string | null;
    /** Whether it was in a maintenance window when last judged (1): leaving one while down opens its incident. */
    in_maintenance: Generated<number>;
    /** The settings of its kind (contract/monitor.ts), JSON: { assertions?, dns?, push? }; '{}' is the defaults. */
    settings: Generated<string>;
    /** push sites: the token's SHA-256 (hex), since when silence counts, and the last call. */
    push_token_hash: string | null;
    push_since: string | null;
    push_last_at: string | null;
    push_last_status: string | null;
    push_last_message: string | null;
    push_last_ms: number | null;
    rejudge_at: string | null;
    conditions_at: string | null;
    domain_checked_at: string | null;
    /** Its flapping as the engine follows it (JSON, engine/flapping.ts); null when not flapping. */
    flap: Generated<string | null>;
    /** Its tags (JSON array of lower-case strings, contract SiteTag), in the order given. */
    tags: Generated<string>;
  };
  site_checks: {
    site_id: string;
    region: string;
    next_check_at: string;
    lease_owner: string | null;
    lease_until: string | null;
    recent: string;
  };
  check_results: {
    id: Generated<number>;
    site_id: string;
    region: string;
    at: string;
    ok: number;
    slow: number;
    status_code: number | null;
    response_ms: number | null;
    error: string | null;
    timings: string;
    /** What a passing check saw (a DNS answer); null for other kinds and before migration 0016. */
    found: string | null;
  };
  daily_stats: {
    id: string;
    site_id: string;
    day: string;
    checks_total: number;
    checks_up: number;
    downtime_minutes: number;
    downtime_ms: Generated<number>;
    slow_count: Generated<number>;
    response_count: Generated<number>;
    response_ms_sum: Generated<number>;
    version: number;
    created_at: string;
    updated_at: string;
  };
  status_pages: {
    id: Generated<number>;
    workspace_id: string;
    name: string;
    slug: string;
    description: string;
    visibility: string;
    password_hash: string | null;
    theme: string;
    display: string;
    custom_domain: string | null;
    /** An https address, or the path of an uploaded image in page_images. */
    logo: string | null;
    favicon: string | null;
    created_at: string;
    updated_at: string;
    /** JSON of the contract's IncidentPolicy; '{}' is the defaults. */
    incident_policy: Generated<string>;
    /** JSON of the contract's SubscriptionSettings; '{}' is off. */
    subscriptions: Generated<string>;
  };
  /** A page's subscriber (contract Subscriber); its links' tokens are derived from the nonces, stored hashed. */
  subscribers: {
    id: string;
    page_id: number;
    kind: string;
    /** The normalised e-mail address; a URL kind's URL masked, with a hash of the whole (unique per page). */
    address: string;
    /** JSON array of the chosen item ids; [] is all. */
    items: Generated<string>;
    state: string;
    /** The page's password hash when they signed up (null: none); a different one now stops their notices. */
    access_key: string | null;
    /** A URL kind's {url, signingSecret}, sealed (accounts/sealed.ts). */
    secret: string | null;
    confirm_nonce: string | null;
    confirm_hash: string | null;
    confirm_expires_at: string | null;
    confirm_sent: Generated<number>;
    confirm_sent_at: string | null;
    manage_nonce: string;
    manage_hash: string;
    failures: Generated<number>;
    suspended_reason: string | null;
    created_at: string;
    confirmed_at: string | null;
  };
  /** One event subscribers are told of, written with the change that caused it; fanned out afterwards. */
  subscriber_notices: {
    id: Generated<number>;
    page_id: number;
    key: string;
    event: string;
    /** An incident's notice: the incident and the update it tells. */
    incident_id: number | null;
    update_id: number | null;
    /** A maintenance notice: the window, and the occurrence it tells of. */
    window_id: string | null;
    starts_at: string | null;
    ends_at: string | null;
    /** JSON array of the item ids the incident or maintenance touches. */
    items: string;
    created_at: string;
    /** The last subscriber id fanned out to. */
    fan_cursor: Generated<string>;
    fanned_out_at: string | null;
  };
  /** One message to one subscriber: a notice's copy, or a confirmation (notice_id 0). */
  subscriber_deliveries: {
    id: Generated<number>;
    subscriber_id: string;
    notice_id: number;
    key: string;
    confirm_nonce: string | null;
    state: string;
    attempts: Generated<number>;
    next_attempt_at: string;
    lease_owner: string | null;
    lease_until: string | null;
    created_at: string;
    finished_at: string | null;
    last_error: string | null;
  };
  /** A workspace's alert channel: config sealed (it holds credentials), target masked for answers. */
  alert_channels: {
    id: string;
    workspace_id: string;
    name: string;
    type: string;
    config: string;
    target: string;
    enabled: number;
    created_at: string;
    updated_at: string;
  };
  alert_defaults: {
    workspace_id: string;
    channels: string;
    events: string;
    repeat_minutes: number | null;
    updated_at: string;
    /** Failed checks in a row before the down alert (2 to 20). */
    confirmations: Generated<number>;
    /** Minutes after an automatic incident resolved within which a new outage re-opens it (0: never). */
    cooldown_minutes: Generated<number>;
    /** JSON of AlertRule.flapping: { outages, windowMinutes, quietMinutes }, or 'null' (off). */
    flapping: Generated<string>;
  };
  site_alert_rules: {
    site_id: string;
    channels: string;
    events: string;
    repeat_minutes: number | null;
    updated_at: string;
    /** Failed checks in a row before the down alert (2 to 20). */
    confirmations: Generated<number>;
    /** Minutes after an automatic incident resolved within which a new outage re-opens it (0: never). */
    cooldown_minutes: Generated<number>;
    /** JSON of AlertRule.flapping: { outages, windowMinutes, quietMinutes }, or 'null' (off). */
    flapping: Generated<string>;
  };
  maintenance_windows: {
    id: string;
    workspace_id: string;
    title: string;
    description: string;
    /** The first occurrence's local start in time_zone, "YYYY-MM-DDTHH:MM". */
    start: string;
    time_zone: string;
    duration_minutes: number;
    /** An RRULE without DTSTART; null: once. */
    recurrence: string | null;
    /** When its occurrences are to be expanded further (engine/maintenance.ts, EXPANSION). */
    refill_at: string;
    created_at: string;
    updated_at: string;
    /** When an owner ended its occurrence under way: occurrences beginning before it end by then (null: never). */
    ended_at: Generated<string | null>;
  };
  maintenance_window_sites: { window_id: string; site_id: string };
  /** Each window's occurrences, expanded ahead (engine/maintenance.ts), as instants. */
  maintenance_occurrences: { window_id: string; starts_at: string; ends_at: string };
  alert_outbox: {
    id: Generated<number>;
    event_id: string;
    workspace_id: string;
    channel_id: string;
    site_id: string;
    type: string;
    event: string;
    state: string;
    attempts: number;
    next_attempt_at: string;
    lease_owner: string | null;
    lease_until: string | null;
    created_at: string;
    finished_at: string | null;
    last_status: number | null;
    last_error: string | null;
  };
  alert_attempts: {
    id: Generated<number>;
    outbox_id: number;
    at: string;
    ok: number;
    status_code: number | null;
    error: string | null;
    response_ms: number;
    response: string;
  };
  /** A page's uploaded logo or favicon (kind), served by its hash at /assets/<hash>.<ext>. */
  page_images: {
    page_id: number;
    kind: string;
    hash: string;
    content_type: string;
    bytes: Uint8Array;
    created_at: string;
  };
  status_page_items: {
    id: Generated<number>;
    page_id: number;
    site_id: string;
    label: string;
    visible: number;
    position: number;
    group_id: number | null;
    created_at: string;
  };
  /** What an import created, by the source's key for it (imports/apply.ts). */
  import_origins: {
    workspace_id: string;
    source: string;
    key: string;
    kind: string;
    object_id: string;
    created_at: string;
  };
  status_page_groups: {
    id: Generated<number>;
    page_id: number;
    name: string;
    description: string;
    position: number;
    collapsed: number;
    created_at: string;
  };
  incidents: {
    id: Generated<number>;
    page_id: number;
    title: string;
    status: string;
    started_at: string;
    resolved_at: string | null;
    created_at: string;
    updated_at: string;
    site_id: Generated<string | null>;
    source: Generated<string>;
    /** none, minor, major, critical. */
    impact: Generated<string>;
    /** When visitors could first read it; null: a draft, or waiting for the page's publication delay. */
    published_at: string | null;
    /** When the engine publishes it (a page that publishes after a delay); null: not by time. */
    publish_at: Generated<string | null>;
    /**
     * When subscribers are told of the engine's resolution, should the service stay up until then (a flap's
     * re-opening meanwhile tells nothing); null: nothing is waiting (told, or not the engine's).
     */
    resolution_due_at: Generated<string | null>;
  };
  incident_items: {
    incident_id: number;
    item_id: number;
    /** What the incident says of this service while open: an AffectedStatus. */
    status: Generated<string>;
  };
  incident_updates: {
    id: Generated<number>;
    incident_id: number;
    status: string;
    message: string;
    created_at: string;
    /** The owner's detail (an automatic update's failed check); never shown to visitors. */
    detail: Generated<string | null>;
  };
  anon_snapshots: {
    id: string;
    domain: string;
    status: string;
    result: string | null;
    error: string | null;
    attempts: Generated<number>;
    lease_until: string | null;
    created_at: string;
    finished_at: string | null;
  };
  anon_reports: {
    id: string;
    domain: string;
    email: string;
    state: string;
    confirm_hash: string;
    unsubscribe_hash: string;
    client_key: string;
    created_at: string;
    confirm_by: string;
    confirmed_at: string | null;
    next_check_at: string | null;
    ends_at: string | null;
    lease_until: string | null;
    sent_at: string | null;
    error: string | null;
  };
  anon_report_checks: {
    id: Generated<number>;
    report_id: string;
    at: string;
    ok: number;
    status_code: number | null;
    response_ms: number | null;
    error: string | null;
  };
}

export type SiteRow = Selectable<Database["sites"]>;
export type PageRow = Selectable<Database["status_pages"]>;
export type ItemRow = Selectable<Database["status_page_items"]>;
export type GroupRow = Selectable<Database["status_page_groups"]>;
export type IncidentRow = Selectable<Database["incidents"]>;
export type IncidentUpdateRow = Selectable<Database["incident_updates"]>;
export type StatRow = Selectable<Database["daily_stats"]>;
export type TokenRow = Selectable<Database["api_tokens"]>;
export type ChannelRow = Selectable<Database["alert_channels"]>;

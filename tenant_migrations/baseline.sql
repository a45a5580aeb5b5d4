-- supportdesk tenant baseline: version 28
--
-- Written by .ci/tenant-baseline from tenant_migrations/V1..V28; do not edit by hand.
-- A new tenant schema is made from this script and then the migrations after V28,
-- and V1..V28 are recorded in its history as applied.


CREATE FUNCTION audit_log_append_only() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'DELETE' AND OLD.at < now() - interval '1 year' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'the audit log is append-only (% refused)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TEXT SEARCH CONFIGURATION search_stems (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR asciiword WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR word WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR hword_part WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR hword_asciipart WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR asciihword WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR hword WITH public.unaccent, english_stem;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_stems
    ADD MAPPING FOR uint WITH simple;

CREATE TEXT SEARCH CONFIGURATION search_words (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR asciiword WITH public.unaccent, simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR word WITH public.unaccent, simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR hword_part WITH public.unaccent, simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR hword_asciipart WITH public.unaccent, simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR asciihword WITH public.unaccent, simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR hword WITH public.unaccent, simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION search_words
    ADD MAPPING FOR uint WITH simple;

CREATE TABLE agent_notices (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    agent_id uuid NOT NULL,
    kind text NOT NULL,
    conversation_id uuid NOT NULL,
    message_id uuid,
    actor_agent_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    outbox_id uuid,
    emailed_at timestamp with time zone,
    dropped_at timestamp with time zone,
    CONSTRAINT agent_notices_kind_check CHECK ((kind = ANY (ARRAY['assigned'::text, 'new_conversation'::text, 'contact_reply'::text, 'mention'::text]))),
    CONSTRAINT agent_notices_settled_once CHECK (((emailed_at IS NULL) OR (dropped_at IS NULL)))
);

CREATE TABLE agent_profiles (
    user_id uuid NOT NULL,
    display_name text NOT NULL,
    avatar_url text,
    notification_preferences jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text NOT NULL,
    full_name text NOT NULL,
    role text NOT NULL,
    status text NOT NULL,
    joined_at timestamp with time zone NOT NULL,
    send_with_enter boolean DEFAULT true NOT NULL,
    CONSTRAINT agent_profiles_role CHECK ((role = ANY (ARRAY['admin'::text, 'agent'::text]))),
    CONSTRAINT agent_profiles_status CHECK ((status = ANY (ARRAY['active'::text, 'deactivated'::text])))
);

CREATE TABLE attachments (
    id uuid NOT NULL,
    conversation_id uuid,
    message_id uuid,
    uploader_kind text NOT NULL,
    uploader_id uuid NOT NULL,
    name text NOT NULL,
    content_type text NOT NULL,
    size bigint NOT NULL,
    width integer,
    height integer,
    inline boolean NOT NULL,
    thumbnail_type text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT attachments_name_check CHECK (((length(name) >= 1) AND (length(name) <= 255))),
    CONSTRAINT attachments_size_check CHECK ((size >= 0)),
    CONSTRAINT attachments_uploader_kind_check CHECK ((uploader_kind = ANY (ARRAY['member'::text, 'api_key'::text, 'visitor'::text])))
);

CREATE TABLE audit_log (
    id uuid NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor_kind text NOT NULL,
    actor_id uuid,
    actor_name text NOT NULL,
    ip inet,
    action text NOT NULL,
    target_type text NOT NULL,
    target_id text,
    changes jsonb DEFAULT '{}'::jsonb NOT NULL,
    CONSTRAINT audit_log_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['user'::text, 'apiKey'::text, 'operator'::text])))
);

CREATE TABLE canned_responses (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    short_code text NOT NULL,
    title text NOT NULL,
    body text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT canned_responses_short_code_normalised CHECK ((short_code = lower(short_code)))
);

CREATE TABLE contact_labels (
    contact_id uuid NOT NULL,
    label_id uuid NOT NULL
);

CREATE TABLE contacts (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    email text,
    name text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    visitor_id uuid,
    external_id text,
    identity_verified boolean DEFAULT false NOT NULL,
    claimed_email text,
    last_page_url text,
    last_page_title text,
    referrer text,
    user_agent text,
    time_zone text,
    locale text,
    last_seen_at timestamp with time zone,
    search tsvector GENERATED ALWAYS AS ((setweight(to_tsvector('search_words'::regconfig, COALESCE(name, ''::text)), 'A'::"char") || setweight(to_tsvector('search_words'::regconfig, email), 'B'::"char"))) STORED,
    CONSTRAINT contacts_claimed_email_normalised CHECK ((claimed_email = lower(btrim(claimed_email)))),
    CONSTRAINT contacts_email_normalised CHECK ((email = lower(btrim(email)))),
    CONSTRAINT contacts_named_somehow CHECK (((email IS NOT NULL) OR (visitor_id IS NOT NULL) OR (external_id IS NOT NULL) OR (claimed_email IS NOT NULL)))
);

CREATE TABLE conversation_labels (
    conversation_id uuid NOT NULL,
    label_id uuid NOT NULL
);

CREATE TABLE conversation_ratings (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    conversation_id uuid NOT NULL,
    resolved_at timestamp with time zone NOT NULL,
    rating smallint NOT NULL,
    comment text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT conversation_ratings_comment_check CHECK ((char_length(comment) <= 2000)),
    CONSTRAINT conversation_ratings_rating_check CHECK (((rating >= 1) AND (rating <= 5)))
);

CREATE TABLE conversation_reads (
    conversation_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    read_at timestamp with time zone NOT NULL
);

CREATE TABLE conversations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    number bigint NOT NULL,
    contact_id uuid NOT NULL,
    subject text,
    status text DEFAULT 'open'::text NOT NULL,
    priority text,
    assignee_id uuid,
    last_message_at timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    channel text DEFAULT 'chat'::text NOT NULL,
    visitor_read_at timestamp with time zone,
    search tsvector GENERATED ALWAYS AS ((to_tsvector('search_words'::regconfig, COALESCE(subject, ''::text)) || to_tsvector('search_stems'::regconfig, COALESCE(subject, ''::text)))) STORED,
    resolved_at timestamp with time zone,
    CONSTRAINT conversations_channel_check CHECK ((channel = ANY (ARRAY['chat'::text, 'manual'::text, 'email'::text]))),
    CONSTRAINT conversations_priority_check CHECK ((priority = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text, 'urgent'::text]))),
    CONSTRAINT conversations_resolved_at_by_status CHECK (((status = 'resolved'::text) = (resolved_at IS NOT NULL))),
    CONSTRAINT conversations_status_check CHECK ((status = ANY (ARRAY['open'::text, 'pending'::text, 'resolved'::text])))
);

ALTER TABLE conversations ALTER COLUMN number ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME conversations_number_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE email_messages (
    message_id uuid NOT NULL,
    conversation_id uuid NOT NULL,
    rfc_message_id text NOT NULL,
    in_reply_to text,
    refs text[] DEFAULT '{}'::text[] NOT NULL,
    from_address text NOT NULL,
    from_name text,
    to_addresses jsonb DEFAULT '[]'::jsonb NOT NULL,
    cc_addresses jsonb DEFAULT '[]'::jsonb NOT NULL,
    subject text DEFAULT ''::text NOT NULL,
    html text,
    quoted text,
    raw_key text,
    authentication jsonb,
    dmarc_failed boolean DEFAULT false NOT NULL,
    delivery_status text,
    delivery_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT email_messages_delivery_status_check CHECK ((delivery_status = ANY (ARRAY['pending'::text, 'sent'::text, 'failed'::text])))
);

CREATE TABLE email_settings (
    singleton boolean DEFAULT true NOT NULL,
    address text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    smtp_host text,
    smtp_port integer,
    smtp_tls boolean,
    smtp_username text,
    smtp_password_sealed bytea,
    smtp_status text,
    smtp_last_error text,
    smtp_checked_at timestamp with time zone,
    CONSTRAINT email_settings_address_check CHECK ((address = lower(btrim(address)))),
    CONSTRAINT email_settings_singleton_check CHECK (singleton),
    CONSTRAINT email_settings_smtp_port_check CHECK (((smtp_port >= 1) AND (smtp_port <= 65535))),
    CONSTRAINT email_settings_smtp_status_check CHECK ((smtp_status = ANY (ARRAY['untested'::text, 'testing'::text, 'working'::text, 'failing'::text]))),
    CONSTRAINT email_settings_smtp_whole CHECK ((((smtp_host IS NULL) = (smtp_port IS NULL)) AND ((smtp_host IS NULL) = (smtp_tls IS NULL)) AND ((smtp_host IS NULL) = (smtp_status IS NULL))))
);

CREATE TABLE email_thread_ids (
    rfc_message_id text NOT NULL,
    conversation_id uuid NOT NULL,
    ours boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE event_arrivals
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE event_batches (
    first_seq bigint NOT NULL,
    arrivals bigint[] NOT NULL,
    max_arrival bigint NOT NULL,
    CONSTRAINT event_batches_arrivals_check CHECK (((cardinality(arrivals) >= 1) AND (cardinality(arrivals) <= 1000)))
);

CREATE TABLE event_log_head (
    only_row boolean DEFAULT true NOT NULL,
    seq bigint DEFAULT 0 NOT NULL,
    pruned_through bigint DEFAULT 0 NOT NULL,
    batched_through bigint DEFAULT 0 NOT NULL,
    above bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    ticket_arrival bigint DEFAULT 0 NOT NULL,
    ticket_xmax bigint DEFAULT 0 NOT NULL,
    CONSTRAINT event_log_head_only_row_check CHECK (only_row)
);

CREATE TABLE events (
    seq bigint,
    id uuid NOT NULL,
    type text NOT NULL,
    occurred_at timestamp with time zone DEFAULT now() NOT NULL,
    actor_kind text NOT NULL,
    actor_id uuid,
    data json NOT NULL,
    conversation_id uuid,
    arrival bigint,
    CONSTRAINT events_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['agent'::text, 'visitor'::text, 'apiKey'::text, 'operator'::text, 'system'::text])))
);

CREATE TABLE labels (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    name text NOT NULL,
    color text NOT NULL,
    description text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT labels_color_check CHECK ((color ~ '^#[0-9a-f]{6}$'::text))
);

CREATE TABLE messages (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    conversation_id uuid NOT NULL,
    kind text NOT NULL,
    body text NOT NULL,
    author_agent_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    search tsvector GENERATED ALWAYS AS ((to_tsvector('search_words'::regconfig, body) || to_tsvector('search_stems'::regconfig, body))) STORED,
    CONSTRAINT messages_author_by_kind CHECK (((kind = 'incoming'::text) = (author_agent_id IS NULL))),
    CONSTRAINT messages_kind_check CHECK ((kind = ANY (ARRAY['incoming'::text, 'outgoing'::text, 'note'::text])))
);

CREATE TABLE rating_requests (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    conversation_id uuid NOT NULL,
    resolved_at timestamp with time zone NOT NULL,
    nonce bytea NOT NULL,
    token_hash bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    rating_id uuid
);

CREATE TABLE report_agent_days (
    day timestamp with time zone NOT NULL,
    agent_id uuid NOT NULL,
    ratings integer[] DEFAULT '{0,0,0,0,0}'::integer[] NOT NULL,
    response_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    response_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL
);

CREATE TABLE report_agent_hours (
    hour timestamp with time zone NOT NULL,
    agent_id uuid NOT NULL,
    ratings integer[] DEFAULT '{0,0,0,0,0}'::integer[] NOT NULL,
    response_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    response_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL
);

CREATE TABLE report_cursor (
    only_row boolean DEFAULT true NOT NULL,
    seq bigint DEFAULT 0 NOT NULL,
    folded_at timestamp with time zone,
    label_rollups_built boolean DEFAULT false NOT NULL,
    CONSTRAINT report_cursor_only_row_check CHECK (only_row)
);

CREATE TABLE report_cycles (
    conversation_id uuid NOT NULL,
    cycle integer NOT NULL,
    channel text NOT NULL,
    started_at timestamp with time zone NOT NULL,
    assignee_id uuid,
    labels uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    first_incoming_at timestamp with time zone,
    first_response_at timestamp with time zone,
    responder_id uuid,
    response_seconds integer,
    response_business_seconds integer,
    resolved_at timestamp with time zone,
    resolution_seconds integer,
    resolution_business_seconds integer,
    rating_id uuid,
    rating smallint,
    rated_at timestamp with time zone,
    CONSTRAINT report_cycles_cycle_check CHECK ((cycle >= 1)),
    CONSTRAINT report_cycles_rating_check CHECK (((rating >= 1) AND (rating <= 5))),
    CONSTRAINT report_cycles_resolution_whole CHECK ((((resolved_at IS NULL) = (resolution_seconds IS NULL)) AND ((resolved_at IS NULL) = (resolution_business_seconds IS NULL)))),
    CONSTRAINT report_cycles_response_whole CHECK ((((first_response_at IS NULL) = (response_seconds IS NULL)) AND ((first_response_at IS NULL) = (response_business_seconds IS NULL))))
);

CREATE TABLE report_hours (
    hour timestamp with time zone NOT NULL,
    channel text NOT NULL,
    created integer DEFAULT 0 NOT NULL,
    reopened integer DEFAULT 0 NOT NULL,
    resolved integer DEFAULT 0 NOT NULL,
    incoming integer DEFAULT 0 NOT NULL,
    ratings integer[] DEFAULT '{0,0,0,0,0}'::integer[] NOT NULL,
    response_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    response_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL
);

CREATE TABLE report_label_agent_days (
    label_id uuid NOT NULL,
    day timestamp with time zone NOT NULL,
    agent_id uuid NOT NULL,
    ratings integer[] DEFAULT '{0,0,0,0,0}'::integer[] NOT NULL,
    response_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    response_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL
);

CREATE TABLE report_label_agent_hours (
    label_id uuid NOT NULL,
    hour timestamp with time zone NOT NULL,
    agent_id uuid NOT NULL,
    ratings integer[] DEFAULT '{0,0,0,0,0}'::integer[] NOT NULL,
    response_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    response_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL
);

CREATE TABLE report_label_hours (
    label_id uuid NOT NULL,
    hour timestamp with time zone NOT NULL,
    channel text NOT NULL,
    created integer DEFAULT 0 NOT NULL,
    reopened integer DEFAULT 0 NOT NULL,
    resolved integer DEFAULT 0 NOT NULL,
    ratings integer[] DEFAULT '{0,0,0,0,0}'::integer[] NOT NULL,
    response_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    response_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_seconds integer[] DEFAULT '{}'::integer[] NOT NULL,
    resolution_business_seconds integer[] DEFAULT '{}'::integer[] NOT NULL
);

CREATE TABLE saved_views (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    owner_id uuid,
    name text NOT NULL,
    filters jsonb NOT NULL,
    "position" integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT saved_views_filters_check CHECK ((jsonb_typeof(filters) = 'object'::text))
);

CREATE TABLE settings (
    id boolean DEFAULT true NOT NULL,
    branding jsonb DEFAULT '{}'::jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    inbox jsonb DEFAULT '{}'::jsonb NOT NULL,
    search_language text DEFAULT 'english'::text NOT NULL,
    business_hours jsonb,
    CONSTRAINT settings_id_check CHECK (id),
    CONSTRAINT settings_search_language_check CHECK ((search_language = ANY (ARRAY['simple'::text, 'arabic'::text, 'armenian'::text, 'basque'::text, 'catalan'::text, 'danish'::text, 'dutch'::text, 'english'::text, 'finnish'::text, 'french'::text, 'german'::text, 'greek'::text, 'hindi'::text, 'hungarian'::text, 'indonesian'::text, 'irish'::text, 'italian'::text, 'lithuanian'::text, 'nepali'::text, 'norwegian'::text, 'portuguese'::text, 'romanian'::text, 'russian'::text, 'serbian'::text, 'spanish'::text, 'swedish'::text, 'tamil'::text, 'turkish'::text, 'yiddish'::text])))
);

CREATE TABLE storage_usage (
    only_row boolean DEFAULT true NOT NULL,
    bytes bigint DEFAULT 0 NOT NULL,
    files bigint DEFAULT 0 NOT NULL,
    CONSTRAINT storage_usage_bytes_check CHECK ((bytes >= 0)),
    CONSTRAINT storage_usage_files_check CHECK ((files >= 0)),
    CONSTRAINT storage_usage_only_row_check CHECK (only_row)
);

CREATE TABLE ticket_comments (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    ticket_id uuid NOT NULL,
    body text NOT NULL,
    author_agent_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE tickets (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    number bigint NOT NULL,
    subject text NOT NULL,
    description text,
    status text DEFAULT 'open'::text NOT NULL,
    priority text,
    assignee_id uuid,
    requester_id uuid NOT NULL,
    conversation_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    resolved_at timestamp with time zone,
    search tsvector GENERATED ALWAYS AS ((setweight((to_tsvector('search_words'::regconfig, subject) || to_tsvector('search_stems'::regconfig, subject)), 'A'::"char") || setweight((to_tsvector('search_words'::regconfig, COALESCE(description, ''::text)) || to_tsvector('search_stems'::regconfig, COALESCE(description, ''::text))), 'B'::"char"))) STORED,
    CONSTRAINT tickets_priority_check CHECK ((priority = ANY (ARRAY['low'::text, 'medium'::text, 'high'::text, 'urgent'::text]))),
    CONSTRAINT tickets_resolved_at_by_status CHECK (((status = ANY (ARRAY['resolved'::text, 'closed'::text])) = (resolved_at IS NOT NULL))),
    CONSTRAINT tickets_status_check CHECK ((status = ANY (ARRAY['open'::text, 'pending'::text, 'resolved'::text, 'closed'::text])))
);

ALTER TABLE tickets ALTER COLUMN number ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME tickets_number_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE visitor_reply_emails (
    outbox_id uuid NOT NULL,
    conversation_id uuid NOT NULL,
    since timestamp with time zone,
    through timestamp with time zone NOT NULL,
    sent_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE webhook_attempts (
    id uuid NOT NULL,
    endpoint_id uuid NOT NULL,
    event_id uuid NOT NULL,
    event_seq bigint,
    event_type text NOT NULL,
    attempt integer NOT NULL,
    status text NOT NULL,
    response_status integer,
    latency_ms integer,
    response_excerpt text,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_attempts_attempt_check CHECK ((attempt >= 1)),
    CONSTRAINT webhook_attempts_status_check CHECK ((status = ANY (ARRAY['succeeded'::text, 'failed'::text])))
);

CREATE TABLE webhook_endpoints (
    id uuid NOT NULL,
    url text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    event_types text[] NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    disabled_reason text,
    secret_sealed bytea NOT NULL,
    previous_secret_sealed bytea,
    previous_until timestamp with time zone,
    cursor bigint NOT NULL,
    attempt integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    failing_since timestamp with time zone,
    last_error text,
    lease_owner uuid,
    lease_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT webhook_endpoints_description_check CHECK ((length(description) <= 500)),
    CONSTRAINT webhook_endpoints_event_types_check CHECK ((cardinality(event_types) > 0)),
    CONSTRAINT webhook_endpoints_url_check CHECK ((length(url) <= 2000))
);

CREATE TABLE webhook_requests (
    id uuid NOT NULL,
    endpoint_id uuid NOT NULL,
    event_seq bigint,
    event_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY agent_notices
    ADD CONSTRAINT agent_notices_pkey PRIMARY KEY (id);

ALTER TABLE ONLY agent_profiles
    ADD CONSTRAINT agent_profiles_pkey PRIMARY KEY (id);

ALTER TABLE ONLY agent_profiles
    ADD CONSTRAINT agent_profiles_user_id_key UNIQUE (user_id);

ALTER TABLE ONLY attachments
    ADD CONSTRAINT attachments_pkey PRIMARY KEY (id);

ALTER TABLE ONLY audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);

ALTER TABLE ONLY canned_responses
    ADD CONSTRAINT canned_responses_pkey PRIMARY KEY (id);

ALTER TABLE ONLY canned_responses
    ADD CONSTRAINT canned_responses_short_code_key UNIQUE (short_code);

ALTER TABLE ONLY contact_labels
    ADD CONSTRAINT contact_labels_pkey PRIMARY KEY (contact_id, label_id);

ALTER TABLE ONLY contacts
    ADD CONSTRAINT contacts_email_key UNIQUE (email);

ALTER TABLE ONLY contacts
    ADD CONSTRAINT contacts_external_id_key UNIQUE (external_id);

ALTER TABLE ONLY contacts
    ADD CONSTRAINT contacts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY contacts
    ADD CONSTRAINT contacts_visitor_id_key UNIQUE (visitor_id);

ALTER TABLE ONLY conversation_labels
    ADD CONSTRAINT conversation_labels_pkey PRIMARY KEY (conversation_id, label_id);

ALTER TABLE ONLY conversation_ratings
    ADD CONSTRAINT conversation_ratings_once_per_resolution UNIQUE (conversation_id, resolved_at);

ALTER TABLE ONLY conversation_ratings
    ADD CONSTRAINT conversation_ratings_pkey PRIMARY KEY (id);

ALTER TABLE ONLY conversation_reads
    ADD CONSTRAINT conversation_reads_pkey PRIMARY KEY (conversation_id, agent_id);

ALTER TABLE ONLY conversations
    ADD CONSTRAINT conversations_number_key UNIQUE (number);

ALTER TABLE ONLY conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY email_messages
    ADD CONSTRAINT email_messages_pkey PRIMARY KEY (message_id);

ALTER TABLE ONLY email_settings
    ADD CONSTRAINT email_settings_pkey PRIMARY KEY (singleton);

ALTER TABLE ONLY email_thread_ids
    ADD CONSTRAINT email_thread_ids_pkey PRIMARY KEY (rfc_message_id);

ALTER TABLE ONLY event_batches
    ADD CONSTRAINT event_batches_pkey PRIMARY KEY (first_seq);

ALTER TABLE ONLY event_log_head
    ADD CONSTRAINT event_log_head_pkey PRIMARY KEY (only_row);

ALTER TABLE ONLY labels
    ADD CONSTRAINT labels_pkey PRIMARY KEY (id);

ALTER TABLE ONLY messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (id);

ALTER TABLE ONLY rating_requests
    ADD CONSTRAINT rating_requests_once_per_resolution UNIQUE (conversation_id, resolved_at);

ALTER TABLE ONLY rating_requests
    ADD CONSTRAINT rating_requests_pkey PRIMARY KEY (id);

ALTER TABLE ONLY rating_requests
    ADD CONSTRAINT rating_requests_token_hash_key UNIQUE (token_hash);

ALTER TABLE ONLY report_agent_days
    ADD CONSTRAINT report_agent_days_pkey PRIMARY KEY (day, agent_id);

ALTER TABLE ONLY report_agent_hours
    ADD CONSTRAINT report_agent_hours_pkey PRIMARY KEY (hour, agent_id);

ALTER TABLE ONLY report_cursor
    ADD CONSTRAINT report_cursor_pkey PRIMARY KEY (only_row);

ALTER TABLE ONLY report_cycles
    ADD CONSTRAINT report_cycles_pkey PRIMARY KEY (conversation_id, cycle);

ALTER TABLE ONLY report_hours
    ADD CONSTRAINT report_hours_pkey PRIMARY KEY (hour, channel);

ALTER TABLE ONLY report_label_agent_days
    ADD CONSTRAINT report_label_agent_days_pkey PRIMARY KEY (label_id, day, agent_id);

ALTER TABLE ONLY report_label_agent_hours
    ADD CONSTRAINT report_label_agent_hours_pkey PRIMARY KEY (label_id, hour, agent_id);

ALTER TABLE ONLY report_label_hours
    ADD CONSTRAINT report_label_hours_pkey PRIMARY KEY (label_id, hour, channel);

ALTER TABLE ONLY saved_views
    ADD CONSTRAINT saved_views_pkey PRIMARY KEY (id);

ALTER TABLE ONLY settings
    ADD CONSTRAINT settings_pkey PRIMARY KEY (id);

ALTER TABLE ONLY storage_usage
    ADD CONSTRAINT storage_usage_pkey PRIMARY KEY (only_row);

ALTER TABLE ONLY ticket_comments
    ADD CONSTRAINT ticket_comments_pkey PRIMARY KEY (id);

ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_number_key UNIQUE (number);

ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_pkey PRIMARY KEY (id);

ALTER TABLE ONLY visitor_reply_emails
    ADD CONSTRAINT visitor_reply_emails_pkey PRIMARY KEY (outbox_id);

ALTER TABLE ONLY webhook_attempts
    ADD CONSTRAINT webhook_attempts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY webhook_endpoints
    ADD CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (id);

ALTER TABLE ONLY webhook_requests
    ADD CONSTRAINT webhook_requests_pkey PRIMARY KEY (id);

CREATE INDEX agent_notices_outbox ON agent_notices USING btree (outbox_id) WHERE (outbox_id IS NOT NULL);

CREATE INDEX agent_notices_unsettled ON agent_notices USING btree (agent_id, created_at) WHERE ((emailed_at IS NULL) AND (dropped_at IS NULL));

CREATE INDEX agent_profiles_joined ON agent_profiles USING btree (joined_at, id);

CREATE INDEX agent_profiles_status_joined ON agent_profiles USING btree (status, joined_at, id);

CREATE INDEX attachments_message ON attachments USING btree (message_id, created_at, id) WHERE (message_id IS NOT NULL);

CREATE INDEX attachments_unsent ON attachments USING btree (created_at) WHERE (message_id IS NULL);

CREATE INDEX audit_log_action ON audit_log USING btree (action, at DESC);

CREATE INDEX audit_log_actor ON audit_log USING btree (actor_id, at DESC);

CREATE INDEX audit_log_at ON audit_log USING btree (at DESC, id DESC);

CREATE INDEX contact_labels_label ON contact_labels USING btree (label_id, contact_id);

CREATE INDEX contacts_created ON contacts USING btree (created_at DESC, id DESC);

CREATE INDEX contacts_search ON contacts USING gin (search);

CREATE INDEX contacts_trigrams ON contacts USING gin ((((COALESCE(name, ''::text) || ' '::text) || email)) public.gin_trgm_ops);

CREATE UNIQUE INDEX contacts_unverified_sender_key ON contacts USING btree (claimed_email) WHERE ((email IS NULL) AND (visitor_id IS NULL) AND (external_id IS NULL));

CREATE INDEX conversation_labels_label ON conversation_labels USING btree (label_id, conversation_id);

CREATE INDEX conversations_activity ON conversations USING btree (last_message_at DESC, id DESC);

CREATE INDEX conversations_assignee_activity ON conversations USING btree (assignee_id, last_message_at DESC, id DESC);

CREATE INDEX conversations_assignee_status_activity ON conversations USING btree (assignee_id, status, last_message_at DESC, id DESC);

CREATE INDEX conversations_contact_activity ON conversations USING btree (contact_id, last_message_at DESC, id DESC);

CREATE INDEX conversations_contact_created ON conversations USING btree (contact_id, created_at DESC);

CREATE INDEX conversations_newest ON conversations USING btree (created_at DESC, id DESC);

CREATE INDEX conversations_search ON conversations USING gin (search);

CREATE INDEX conversations_status_activity ON conversations USING btree (status, last_message_at DESC, id DESC);

CREATE INDEX conversations_unassigned_activity ON conversations USING btree (last_message_at DESC, id DESC) WHERE (assignee_id IS NULL);

CREATE INDEX conversations_unassigned_status_activity ON conversations USING btree (status, last_message_at DESC, id DESC) WHERE (assignee_id IS NULL);

CREATE INDEX email_messages_conversation ON email_messages USING btree (conversation_id, created_at DESC);

CREATE INDEX email_thread_ids_conversation ON email_thread_ids USING btree (conversation_id);

CREATE INDEX event_batches_max_arrival ON event_batches USING btree (max_arrival);

CREATE INDEX events_conversation ON events USING btree (conversation_id, seq) WHERE (conversation_id IS NOT NULL);

CREATE UNIQUE INDEX events_seq ON events USING btree (seq) WHERE (seq IS NOT NULL);

CREATE INDEX events_unnumbered ON events USING btree (arrival) WHERE (seq IS NULL);

CREATE UNIQUE INDEX labels_name_key ON labels USING btree (lower(name));

CREATE INDEX messages_conversation ON messages USING btree (conversation_id, created_at, id);

CREATE INDEX messages_incoming ON messages USING btree (conversation_id, created_at) WHERE (kind = 'incoming'::text);

CREATE INDEX messages_newest ON messages USING btree (created_at DESC, id DESC);

CREATE INDEX messages_search ON messages USING gin (search);

CREATE INDEX report_cycles_by_assignee ON report_cycles USING btree (assignee_id, resolved_at) INCLUDE (resolution_seconds, resolution_business_seconds, channel);

CREATE INDEX report_cycles_by_assignee_start ON report_cycles USING btree (assignee_id, started_at) INCLUDE (cycle, channel);

CREATE INDEX report_cycles_by_label ON report_cycles USING gin (labels);

CREATE INDEX report_cycles_by_rating ON report_cycles USING btree (rated_at) INCLUDE (rating, assignee_id, channel) WHERE (rating IS NOT NULL);

CREATE INDEX report_cycles_by_resolution ON report_cycles USING btree (resolved_at) INCLUDE (resolution_seconds, resolution_business_seconds, assignee_id, channel) WHERE (resolved_at IS NOT NULL);

CREATE INDEX report_cycles_by_responder ON report_cycles USING btree (responder_id, first_response_at) INCLUDE (response_seconds, response_business_seconds, channel) WHERE (first_response_at IS NOT NULL);

CREATE INDEX report_cycles_by_response ON report_cycles USING btree (first_response_at) INCLUDE (response_seconds, response_business_seconds, responder_id, channel) WHERE (first_response_at IS NOT NULL);

CREATE INDEX report_cycles_by_start ON report_cycles USING btree (started_at) INCLUDE (cycle, channel, assignee_id);

CREATE INDEX saved_views_owner ON saved_views USING btree (owner_id, "position", id);

CREATE INDEX ticket_comments_ticket ON ticket_comments USING btree (ticket_id, created_at, id);

CREATE INDEX tickets_assignee_number ON tickets USING btree (assignee_id, number DESC);

CREATE INDEX tickets_assignee_status_number ON tickets USING btree (assignee_id, status, number DESC);

CREATE INDEX tickets_requester_number ON tickets USING btree (requester_id, number DESC);

CREATE INDEX tickets_search ON tickets USING gin (search);

CREATE INDEX tickets_status_number ON tickets USING btree (status, number DESC);

CREATE INDEX tickets_unassigned_number ON tickets USING btree (number DESC) WHERE (assignee_id IS NULL);

CREATE INDEX tickets_unassigned_status_number ON tickets USING btree (status, number DESC) WHERE (assignee_id IS NULL);

CREATE INDEX visitor_reply_emails_conversation ON visitor_reply_emails USING btree (conversation_id, through DESC);

CREATE INDEX webhook_attempts_age ON webhook_attempts USING btree (created_at);

CREATE INDEX webhook_attempts_endpoint ON webhook_attempts USING btree (endpoint_id, id DESC);

CREATE INDEX webhook_requests_endpoint ON webhook_requests USING btree (endpoint_id, created_at);

CREATE TRIGGER audit_log_append_only BEFORE DELETE OR UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();

ALTER TABLE ONLY agent_notices
    ADD CONSTRAINT agent_notices_actor_agent_id_fkey FOREIGN KEY (actor_agent_id) REFERENCES agent_profiles(id);

ALTER TABLE ONLY agent_notices
    ADD CONSTRAINT agent_notices_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agent_profiles(id);

ALTER TABLE ONLY agent_notices
    ADD CONSTRAINT agent_notices_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY agent_notices
    ADD CONSTRAINT agent_notices_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE SET NULL;

ALTER TABLE ONLY attachments
    ADD CONSTRAINT attachments_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY attachments
    ADD CONSTRAINT attachments_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE;

ALTER TABLE ONLY contact_labels
    ADD CONSTRAINT contact_labels_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts(id) ON DELETE CASCADE;

ALTER TABLE ONLY contact_labels
    ADD CONSTRAINT contact_labels_label_id_fkey FOREIGN KEY (label_id) REFERENCES labels(id) ON DELETE CASCADE;

ALTER TABLE ONLY conversation_labels
    ADD CONSTRAINT conversation_labels_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY conversation_labels
    ADD CONSTRAINT conversation_labels_label_id_fkey FOREIGN KEY (label_id) REFERENCES labels(id) ON DELETE CASCADE;

ALTER TABLE ONLY conversation_ratings
    ADD CONSTRAINT conversation_ratings_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY conversation_reads
    ADD CONSTRAINT conversation_reads_agent_id_fkey FOREIGN KEY (agent_id) REFERENCES agent_profiles(id);

ALTER TABLE ONLY conversation_reads
    ADD CONSTRAINT conversation_reads_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY conversations
    ADD CONSTRAINT conversations_assignee_id_fkey FOREIGN KEY (assignee_id) REFERENCES agent_profiles(id);

ALTER TABLE ONLY conversations
    ADD CONSTRAINT conversations_contact_id_fkey FOREIGN KEY (contact_id) REFERENCES contacts(id);

ALTER TABLE ONLY email_messages
    ADD CONSTRAINT email_messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY email_messages
    ADD CONSTRAINT email_messages_message_id_fkey FOREIGN KEY (message_id) REFERENCES messages(id) ON DELETE CASCADE;

ALTER TABLE ONLY email_thread_ids
    ADD CONSTRAINT email_thread_ids_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY messages
    ADD CONSTRAINT messages_author_agent_id_fkey FOREIGN KEY (author_agent_id) REFERENCES agent_profiles(id);

ALTER TABLE ONLY messages
    ADD CONSTRAINT messages_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY rating_requests
    ADD CONSTRAINT rating_requests_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY rating_requests
    ADD CONSTRAINT rating_requests_rating_id_fkey FOREIGN KEY (rating_id) REFERENCES conversation_ratings(id) ON DELETE SET NULL;

ALTER TABLE ONLY saved_views
    ADD CONSTRAINT saved_views_owner_id_fkey FOREIGN KEY (owner_id) REFERENCES agent_profiles(id) ON DELETE CASCADE;

ALTER TABLE ONLY ticket_comments
    ADD CONSTRAINT ticket_comments_author_agent_id_fkey FOREIGN KEY (author_agent_id) REFERENCES agent_profiles(id);

ALTER TABLE ONLY ticket_comments
    ADD CONSTRAINT ticket_comments_ticket_id_fkey FOREIGN KEY (ticket_id) REFERENCES tickets(id) ON DELETE CASCADE;

ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_assignee_id_fkey FOREIGN KEY (assignee_id) REFERENCES agent_profiles(id);

ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE SET NULL;

ALTER TABLE ONLY tickets
    ADD CONSTRAINT tickets_requester_id_fkey FOREIGN KEY (requester_id) REFERENCES contacts(id);

ALTER TABLE ONLY visitor_reply_emails
    ADD CONSTRAINT visitor_reply_emails_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY webhook_attempts
    ADD CONSTRAINT webhook_attempts_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id) ON DELETE CASCADE;

ALTER TABLE ONLY webhook_requests
    ADD CONSTRAINT webhook_requests_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id) ON DELETE CASCADE;

INSERT INTO email_settings DEFAULT VALUES;
INSERT INTO event_log_head DEFAULT VALUES;
INSERT INTO report_cursor DEFAULT VALUES;
INSERT INTO settings DEFAULT VALUES;
INSERT INTO storage_usage DEFAULT VALUES;

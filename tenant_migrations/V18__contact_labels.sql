-- Labels on contacts, from the workspace's one set ("VIP", "Reseller"): agents apply them,
-- the contacts list filters by them. Deleting a label or a contact takes it off.
CREATE TABLE contact_labels (
    contact_id  uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    label_id    uuid NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
    PRIMARY KEY (contact_id, label_id)
);
-- The contacts list filtered by a label; deleting a label.
CREATE INDEX contact_labels_label ON contact_labels (label_id, contact_id);
-- The contacts list, newest first, a page at a time.
CREATE INDEX contacts_created ON contacts (created_at DESC, id DESC);

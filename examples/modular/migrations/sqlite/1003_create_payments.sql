-- The payments module's table (SQLite).
CREATE TABLE payments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    order_id     INTEGER NOT NULL REFERENCES orders (id),
    amount_cents INTEGER NOT NULL,
    reference    TEXT NOT NULL,
    approved     BOOLEAN NOT NULL
);

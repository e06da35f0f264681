-- The quickstart's notes (SQLite).
CREATE TABLE notes (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL,
    link TEXT NOT NULL DEFAULT ''
);
INSERT INTO notes (text, link) VALUES ('Welcome to Plinth.', 'https://github.com/plinth-go/plinth');

-- Project identity (core/project): every project a memory or a session
-- names, kept by triggers so resolving a short name or a working directory
-- to a known project reads a small table, not every memory. The one-time
-- steps of the identity migration (absolute subfolders mapped to their
-- repository root, short names to the root with that name) are recorded
-- in project_steps so each runs once.
CREATE TABLE projects (
    id         TEXT PRIMARY KEY,   -- a repository root path, or a short name
    first_seen TEXT NOT NULL
) WITHOUT ROWID;

INSERT OR IGNORE INTO projects (id, first_seen)
    SELECT project, min(created_at) FROM memories WHERE COALESCE(project, '') <> '' GROUP BY project;
INSERT OR IGNORE INTO projects (id, first_seen)
    SELECT project, min(started_at) FROM sessions WHERE COALESCE(project, '') <> '' GROUP BY project;

CREATE TRIGGER projects_memories_ai AFTER INSERT ON memories
WHEN COALESCE(new.project, '') <> '' BEGIN
    INSERT OR IGNORE INTO projects (id, first_seen) VALUES (new.project, new.created_at);
END;

CREATE TRIGGER projects_memories_au AFTER UPDATE OF project ON memories
WHEN COALESCE(new.project, '') <> '' AND old.project IS NOT new.project BEGIN
    INSERT OR IGNORE INTO projects (id, first_seen) VALUES (new.project, new.updated_at);
END;

CREATE TRIGGER projects_sessions_ai AFTER INSERT ON sessions
WHEN COALESCE(new.project, '') <> '' BEGIN
    INSERT OR IGNORE INTO projects (id, first_seen) VALUES (new.project, new.started_at);
END;

CREATE TRIGGER projects_sessions_au AFTER UPDATE OF project ON sessions
WHEN COALESCE(new.project, '') <> '' AND old.project IS NOT new.project BEGIN
    INSERT OR IGNORE INTO projects (id, first_seen) VALUES (new.project, new.started_at);
END;

CREATE TABLE project_steps (
    name    TEXT PRIMARY KEY,
    done_at TEXT NOT NULL
) WITHOUT ROWID;

-- Learning from sessions (issue 34).
--
-- What a prompt injected as an answer: a memory the prompt was about (it
-- held most of the prompt's weighted words). The prompt gate's repeat
-- rule holds back, for the next prompts of the session, what was already
-- given as an answer, never what was only offered as noise or listed at
-- session start.
ALTER TABLE session_injections ADD COLUMN about INTEGER NOT NULL DEFAULT 0;

-- A session's update of an existing memory writes its fact at once and
-- waits for review to retire the old memory: the hooks look the pending
-- ones up by target to put the live value first.
CREATE INDEX idx_proposals_target_pending ON pipeline_proposals(target_memory_id) WHERE state = 'pending';

-- What of a session's transcript could not be read (lines that are not
-- JSON, binary, a read that stopped early): the rest is learned from,
-- and the session's record says what was left out.
ALTER TABLE session_transcripts ADD COLUMN warning TEXT;

-- Model calls and tokens per day and provider (a model the user chose
-- runs in the background: its use is visible, and a daily budget stops
-- it). fallbacks counts the prompts the built-in heuristic answered
-- instead because the day's budget was spent.
CREATE TABLE model_usage (
    day           TEXT    NOT NULL,   -- YYYY-MM-DD, UTC
    provider      TEXT    NOT NULL,
    calls         INTEGER NOT NULL DEFAULT 0,
    failed        INTEGER NOT NULL DEFAULT 0,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    fallbacks     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, provider)
) WITHOUT ROWID;

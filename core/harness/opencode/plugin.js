// cairn for OpenCode: written by `cairn install opencode`, removed by `cairn uninstall opencode`.
// It runs cairn's hook shim (cairn hook --harness opencode EVENT, the event as JSON on stdin):
// cairn's context for the session and for each prompt goes to the model; the conversation goes
// to cairn when the session goes idle (OpenCode has no session end event and no transcript file).
import { spawn, spawnSync } from "node:child_process"

const CAIRN = __CAIRN_BIN__
const ARGS = (event) => ["hook", "--harness", "opencode", event]

// hook runs the shim for event and resolves to its stdout ("" on any failure or after ms).
const hook = (event, input, cwd, ms) =>
  new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = () => {
      if (!done) {
        done = true
        resolve(out)
      }
    }
    try {
      const p = spawn(CAIRN, ARGS(event), { cwd, stdio: ["pipe", "pipe", "ignore"] })
      const timer = setTimeout(() => {
        try {
          p.kill("SIGKILL")
        } catch {}
        out = ""
        finish()
      }, ms)
      p.stdout.on("data", (d) => (out += d))
      p.on("error", () => (clearTimeout(timer), finish()))
      p.on("close", () => (clearTimeout(timer), finish()))
      p.stdin.on("error", () => {})
      p.stdin.end(JSON.stringify(input))
    } catch {
      finish()
    }
  })

// context is the additionalContext of the shim's answer.
const context = (out) => {
  try {
    return JSON.parse(out).hookSpecificOutput.additionalContext || ""
  } catch {
    return ""
  }
}

const textOf = (parts) =>
  (parts || [])
    .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n")

export const Cairn = async ({ client, directory }) => {
  const cwd = directory
  const starts = new Map() // session → promise of its session-start context
  const sources = new Map() // session → the source of its next session start (compact after a compaction)
  const seen = new Map() // session → message id → {role, parts: part id → text}, from the events

  const start = (sessionID) => {
    if (!starts.has(sessionID)) {
      const source = sources.get(sessionID) || "startup"
      sources.delete(sessionID)
      starts.set(sessionID, hook("session-start", { session_id: sessionID, cwd, source }, cwd, 2500).then(context))
    }
    return starts.get(sessionID)
  }

  // transcript is the session's conversation as JSONL lines {role, content}: from OpenCode's
  // API when it answers in time, else from the message events this process saw.
  const transcript = async (sessionID) => {
    try {
      const res = await Promise.race([
        client.session.messages({ path: { id: sessionID } }),
        new Promise((r) => setTimeout(() => r(null), 1000)),
      ])
      const msgs = res && Array.isArray(res.data) ? res.data : null
      if (msgs && msgs.length) {
        return msgs
          .map((m) => ({ role: m.info && m.info.role, content: textOf(m.parts) }))
          .filter((m) => (m.role === "user" || m.role === "assistant") && m.content.trim())
          .map((m) => JSON.stringify(m))
          .join("\n")
      }
    } catch {}
    const msgs = seen.get(sessionID)
    if (!msgs) return ""
    return [...msgs.values()]
      .map((m) => ({ role: m.role, content: [...m.parts.values()].join("\n") }))
      .filter((m) => (m.role === "user" || m.role === "assistant") && m.content.trim())
      .map((m) => JSON.stringify(m))
      .join("\n")
  }

  const note = (event) => {
    const p = event.properties || {}
    if (event.type === "message.updated" && p.info && p.info.sessionID) {
      const msgs = seen.get(p.info.sessionID) || new Map()
      seen.set(p.info.sessionID, msgs)
      const m = msgs.get(p.info.id) || { role: p.info.role, parts: new Map() }
      m.role = p.info.role
      msgs.set(p.info.id, m)
    }
    if (event.type === "message.part.updated" && p.part && p.part.type === "text" && !p.part.synthetic) {
      const msgs = seen.get(p.part.sessionID) || new Map()
      seen.set(p.part.sessionID, msgs)
      const m = msgs.get(p.part.messageID) || { role: "", parts: new Map() }
      m.parts.set(p.part.id, p.part.text || "")
      msgs.set(p.part.messageID, m)
    }
  }

  return {
    "experimental.chat.system.transform": async (input, output) => {
      if (!input || !input.sessionID) return
      const ctx = await start(input.sessionID)
      if (ctx) output.system.push(ctx)
    },
    "chat.message": async (input, output) => {
      const prompt = textOf(output.parts)
      if (!input || !input.sessionID || !prompt.trim()) return
      const ctx = context(await hook("user-prompt-submit", { session_id: input.sessionID, cwd, prompt }, cwd, 2500))
      const tpl = output.parts.find((p) => p.type === "text")
      if (ctx && tpl) output.parts.push({ ...tpl, id: tpl.id + "z", text: ctx, synthetic: true })
    },
    "experimental.session.compacting": async (input) => {
      if (!input || !input.sessionID) return
      await hook("pre-compact", { session_id: input.sessionID, cwd, trigger: "auto" }, cwd, 2500)
      starts.delete(input.sessionID)
      sources.set(input.sessionID, "compact")
    },
    event: async ({ event }) => {
      if (!event) return
      note(event)
      if (event.type !== "session.idle" || !event.properties || !event.properties.sessionID) return
      const sessionID = event.properties.sessionID
      const input = { session_id: sessionID, cwd, reason: "idle", transcript: await transcript(sessionID) }
      // Synchronous: `opencode run` exits right after the session goes idle.
      try {
        spawnSync(CAIRN, ARGS("session-end"), { cwd, input: JSON.stringify(input), stdio: ["pipe", "ignore", "ignore"], timeout: 3000 })
      } catch {}
    },
  }
}

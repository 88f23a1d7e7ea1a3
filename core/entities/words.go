package entities

import (
	"strings"
	"sync"

	"github.com/cairnmem/cairn/core/text"
)

// Entity types the linker assigns. The async extraction may refine them
// (a model knows "Paris" is a place, not a person).
const (
	TypePerson   = "person"  // capitalised names
	TypeProject  = "project" // "the X project", "X repo"
	TypeTool     = "tool"    // curated tools, CamelCase names, "X tool"
	TypeLibrary  = "library" // github.com/x/y, @scope/pkg, net/http, "X library"
	TypeService  = "service" // databases, hosted services, "X service/server"
	TypeFile     = "file"    // paths, file names, globs
	TypeCode     = "code"    // Foo.Bar(), func_name(), snake_case, camelCase
	TypeVersion  = "version" // v1.2.3 not attached to a name
	TypeURL      = "url"     // URLs and bare domains
	TypeUnknown  = "unknown" // acronyms and other names of unknown kind
	MinNameRunes = 3         // shorter names are entities only when curated
	MaxMentions  = 32        // per memory, in order of first appearance
	maxNameRunes = 120       // longer "names" are not names
	maxRunWords  = 4         // capitalised runs longer than this are titles, not names
	queryNGram   = 3         // QueryKeys looks at 1- to 3-word runs
	maxQueryKeys = 128       // and at most this many of them
)

// set builds a lookup table from whitespace-separated words.
func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// roleWords name a participant's role, never an entity: transcripts label
// turns with them and extractors like to make them subjects.
var roleWords = lazySet(`user users assistant assistants sentence sentences speaker speakers human humans system bot bots
	ai agent agents model narrator me myself you yourself i we us they them he she him her it someone somebody
	everyone everybody anyone anybody nobody noone people person folks guys guy i'm i've i'd i'll you're you've
	you'll you'd we're we've we'll we'd they're they've they'll they'd he's she's he'd she'd he'll she'll ya y'all`)

// calendarWords are days and months (and their abbreviations): dates are
// handled by recall's temporal anchors, not by the graph.
var calendarWords = lazySet(`monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
	january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec weekday weekend weekends`)

// greetings open a vocative: "Hey John,", "Thanks, Evan!".
var greetings = lazySet(`hey hi hello hiya yo thanks thank thx ty bye goodbye dear oh ah wow congrats congratulations morning
	evening night afternoon sorry welcome cheers howdy ok okay yes yeah yep no nope sure great awesome cool nice`)

// commonWords are ordinary words that are capitalised when they open a
// sentence (or are shouted), and generic nouns of software work. Never an
// entity on their own.
var commonWords = lazySet(`
	wow hey hi hello hiya oh ah aha ahh aw aww awww ooh oops yeah yes yep yup no nope nah ok okay sure thanks thank thx
	cool awesome great nice good amazing congrats congratulations haha hahaha lol lmao hmm hm um umm uh well anyway
	absolutely totally definitely exactly indeed bye goodbye cheers welcome sorry please alright whoa woah woohoo yay
	omg gosh dang damn sweet lovely wonderful fantastic incredible brilliant perfect sounds glad love loved loving
	hope hoping wish seems looks got gonna wanna gotta guess maybe perhaps probably actually really also just still
	even yet though although however besides plus btw speaking talking truly honestly seriously basically literally
	agreed agree true false right left wrong correct exciting excited interesting fascinating impressive cute super
	pretty quite fun funny happy sad proud sounds wonderful beautiful gorgeous stunning tough hard easy sounds whoops
	make use run do go get see let try keep take give check add fix set put find read write remember note consider
	imagine think know feel tell ask call look wait stop start play work learn help need want like say said told
	went came made took saw found thought felt knew been being did does done doing having has had heard listen
	thinking feeling looking going getting making trying working playing hoping planning wondering
	today tonight tomorrow yesterday now then later soon recently lately last next first second third finally
	eventually currently sometimes often usually always never once twice morning evening night afternoon week
	month year day days time times moment moments ago earlier before after during meanwhile since until
	mom dad mum mother father sister brother son daughter wife husband friend friends family kids kid children
	child baby parents parent grandma grandpa aunt uncle cousin buddy pal partner mr mrs ms dr prof sir madam miss
	new old big small little main other another every each many much more most less least few several such same
	different whole own real best better worse worst high low long short full empty open close free public private
	local remote default current previous latest simple important special favorite favourite sure certain whatever
	standard official external internal third-party open-source custom shared common core base native built-in
	builtin legacy modern popular single multiple separate specific general global dedicated secure fast slow
	light lightweight heavy
	life nature world everything nothing something anything thing things stuff way ways lot lots kind sort part
	here there where when what which who whom whose why how this that these those it its
	api apis url urls uri http https json yaml yml toml xml html css csv cli ui ux gui db sql cpu gpu ram ssd os
	id ids io pr prs ci cd qa dev prod staging todo todos fixme note notes wip fyi asap tbd eta faq tldr utf-8 utf8
	ascii app apps web server servers client clients service services database databases library libraries
	framework frameworks tool tools file files code bug bugs test tests testing error errors issue issues feature
	features config configuration settings setting data user admin system project projects module modules package
	packages function functions method methods class classes type types value values key keys field fields table
	tables row rows column columns query queries request requests response responses endpoint endpoints version
	versions release releases build builds deploy deployment commit commits branch branches merge master cache
	log logs script scripts command commands docs documentation backend frontend repo repos repository
	step steps plan plans idea ideas question questions answer answers problem problems solution solutions
	update updates change changes decision decisions architecture design summary overview goal goals
	important warning warnings info tip tips example examples reminder follow follow-up followup
	`)

// stoplike reports whether a lower-cased word is never an entity by itself:
// a stopword, a role word, a day or month, or a common word.
func stoplike(w string) bool {
	return text.Stopwords[w] || roleWords()[w] || calendarWords()[w] || commonWords()[w]
}

// headTypes are the nouns that make the word before them a named thing of
// a kind: "the Stripe service", "the billing service", "the zod library".
var headTypes = map[string]string{
	"library": TypeLibrary, "framework": TypeLibrary, "package": TypeLibrary, "module": TypeLibrary, "sdk": TypeLibrary,
	"service": TypeService, "server": TypeService, "database": TypeService,
	"tool": TypeTool, "plugin": TypeTool, "extension": TypeTool, "cli": TypeTool,
	"project": TypeProject, "repo": TypeProject, "repository": TypeProject,
}

// curatedTool is a well-known tool. Ambiguous ones are also English words
// ("Go", "Rust", "Slack"): they count only when capitalised, and not when
// they merely open a sentence.
type curatedTool struct {
	typ       string
	ambiguous bool
}

var curated = map[string]curatedTool{}

func init() {
	add := func(typ string, ambiguous bool, names string) {
		for _, n := range strings.Fields(names) {
			curated[n] = curatedTool{typ: typ, ambiguous: ambiguous}
		}
	}
	add(TypeTool, false, `golang python javascript typescript kotlin scala elixir erlang haskell clojure perl php lua zig
		dart ocaml powershell c++ c# f# bash zsh docker podman kubernetes k8s helm terraform ansible pulumi nginx
		traefik haproxy istio consul prometheus grafana datadog jaeger opentelemetry git github gitlab bitbucket
		circleci buildkite argocd vagrant systemd tmux vim neovim nvim emacs vscode intellij xcode npm pnpm deno
		node.js nodejs pip conda rustup gradle maven bazel cmake webpack vite esbuild eslint vitest pytest junit
		staticcheck gofmt golangci-lint linux macos ubuntu debian android wsl chatgpt gpt-4 gpt-4o gpt-3.5 ollama
		openai anthropic sqlc`)
	add(TypeTool, true, `go rust java swift ruby fish make ninja cargo poetry yarn bun brew julia cursor windows alpine
		arch envoy caddy sentry jest mocha cypress playwright selenium babel prettier rollup homebrew claude llama
		copilot fedora jenkins goose`)
	add(TypeService, false, `postgres postgresql mysql mariadb sqlite sqlite3 redis mongodb cassandra dynamodb elasticsearch
		opensearch clickhouse duckdb neo4j couchdb influxdb memcached etcd kafka rabbitmq supabase firebase bigquery
		aws gcp azure s3 ec2 cloudflare vercel netlify heroku fly.io digitalocean linode twilio sendgrid jira
		figma okta auth0 keycloak pgvector sqlite-vec`)
	add(TypeService, true, `mongo snowflake lambda render stripe slack linear notion gemini mistral vault nats discord`)
	add(TypeLibrary, false, `vue vue.js sveltekit next.js nextjs nuxt fastify nestjs django fastapi laravel symfony
		tailwind tailwindcss jquery htmx redux graphql grpc protobuf openapi swagger prisma sqlalchemy numpy scipy
		pytorch tensorflow keras langchain llamaindex huggingface onnx opencv three.js d3 d3.js lodash axios zod
		bubbletea`)
	add(TypeLibrary, true, `remix flask gin echo fiber bootstrap pandas transformers spring express react rails drizzle
		angular svelte astro cobra viper lipgloss`)
}

// fileExts are extensions that make a dotted word a file name.
var fileExts = lazySet(`go mod sum ts tsx js jsx mjs cjs py rs rb java kt kts c h cc cpp hpp cs swift md mdx json jsonl
	yaml yml toml ini sql sh bash zsh fish txt html htm css scss sass less lock env cfg conf xml proto csv tsv log
	db sqlite dockerfile makefile gradle tf tfvars lua php pl ex exs erl hs clj vue svelte astro ipynb pdf png jpg
	jpeg gif svg webp zip tar gz tgz wasm so dll exe bin`)

// tlds end a bare domain ("example.com").
var tlds = lazySet(`com org net io dev ai app co sh so gg me us uk de fr eu info biz cloud tech xyz`)

// titleWords are abbreviations that end with a period without ending the
// sentence.
var titleWords = lazySet(`mr mrs ms dr prof st jr sr vs etc e.g i.e cf approx no`)

// lazySet is a set built on first use (see lazyRegexp).
func lazySet(words string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool { return set(words) })
}

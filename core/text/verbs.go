package text

import "strings"

// IrregularVerbs maps irregular English verb forms to each other. Questions
// ask in the base form ("when did she go", "what did he buy") while
// memories tell in the past ("I went", "he bought"); Porter stemming cannot
// join these, so the keyword leg adds the other forms of each query word.
var IrregularVerbs = map[string][]string{}

func init() {
	for _, line := range strings.Split(`be was were been
become became
begin began begun
break broke broken
bring brought
build built
buy bought
catch caught
choose chose chosen
come came
cost
cut
do did done
draw drew drawn
drink drank drunk
drive drove driven
eat ate eaten
fall fell fallen
feel felt
fight fought
find found
fly flew flown
forget forgot forgotten
get got gotten
give gave given
go went gone
grow grew grown
have had
hear heard
hold held
keep kept
know knew known
lead led
learn learnt
leave left
lend lent
lose lost
make made
mean meant
meet met
pay paid
put
read
ride rode ridden
ring rang rung
rise rose risen
run ran
say said
see saw seen
sell sold
send sent
set
show showed shown
sing sang sung
sit sat
sleep slept
speak spoke spoken
spend spent
stand stood
steal stole stolen
swim swam swum
take took taken
teach taught
tell told
think thought
throw threw thrown
understand understood
wake woke woken
wear wore worn
win won
write wrote written`, "\n") {
		forms := strings.Fields(line)
		for _, f := range forms {
			for _, g := range forms {
				if f != g {
					IrregularVerbs[f] = append(IrregularVerbs[f], g)
				}
			}
		}
	}
}

// expandVerbForms appends the other forms of irregular verbs among terms,
// without repeats, keeping the original terms first.
func expandVerbForms(terms []string) []string {
	seen := map[string]bool{}
	for _, t := range terms {
		seen[t] = true
	}
	out := terms
	for _, t := range terms {
		for _, f := range IrregularVerbs[t] {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

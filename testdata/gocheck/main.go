// Command gocheck reads session logs with Go's encoding/json, as agentloop does, and checks
// that every line survives a round trip byte for byte: json.Unmarshal into the seed's Entry,
// json.Marshal back, compare. The types below are the seed's (002_b8baa2d9a4d5bb0e.txt), with
// their JSON tags; only ModelError differs, with a MarshalJSON that does what the seed's
// `omitzero` does on Go 1.24 and later.
//
// Lines that are meant to be bad are listed in expected, by file name and line: they must
// fail or differ, and everything else must be identical.
//
//	go run . ../sessions/*.jsonl
//
// With -write DIR it also writes, for each log, DIR/NAME.go: one line per line of the log that
// json.Unmarshal accepts, "N<TAB>" and what json.Marshal wrote for it (N is the 1-based line).
// With -any, lines may differ from what Go writes back (for inputs Go did not write). The test
// tests/test_roundtrip.py compares sessiontools' writer with these bytes:
//
//	go run . -write ../../tests/roundtrip ../sessions/*.jsonl
//	go run . -any -write ../../tests/roundtrip ../../tests/roundtrip/oddities.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// The seed's types.

type EntryType string

type Entry struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Type EntryType `json:"type"`

	RunStarted  *RunStartedEntry  `json:"run_started,omitempty"`
	Message     *MessageEntry     `json:"message,omitempty"`
	Decision    *DecisionEntry    `json:"decision,omitempty"`
	CallStarted *CallStartedEntry `json:"call_started,omitempty"`
	ToolResult  *ToolResultEntry  `json:"tool_result,omitempty"`
	ModelError  *ModelErrorEntry  `json:"model_error,omitempty"`
	RunEnded    *Outcome          `json:"run_ended,omitempty"`
	Labels      *LabelsEntry      `json:"labels,omitempty"`
	Pins        *PinsEntry        `json:"pins,omitempty"`
}

type RunStartedEntry struct {
	Prompt string `json:"prompt,omitempty"`
}

type Role string
type Stop string
type PartType string
type Verdict string
type ErrorKind string
type Reason string

type MessageEntry struct {
	Message Message `json:"message"`
	Stop    Stop    `json:"stop,omitempty"`
	Usage   Usage   `json:"usage"`
	Model   string  `json:"model,omitempty"`
	Refusal string  `json:"refusal,omitempty"`
}

type Message struct {
	Role   Role    `json:"role"`
	Parts  []Part  `json:"parts"`
	Native *Native `json:"native,omitempty"`
}

type Part struct {
	Type       PartType    `json:"type"`
	Text       string      `json:"text,omitempty"`
	ToolCall   *ToolCall   `json:"tool_call,omitempty"`
	ToolResult *ToolResult `json:"tool_result,omitempty"`
}

type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type ToolResult struct {
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

type Native struct {
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Data     json.RawMessage `json:"data"`
}

type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

type DecisionEntry struct {
	CallID  string   `json:"call_id"`
	Tool    string   `json:"tool"`
	Verdict Verdict  `json:"verdict"`
	Reason  string   `json:"reason,omitempty"`
	Labels  []string `json:"labels,omitempty"`
}

type CallStartedEntry struct {
	CallID string `json:"call_id"`
}

type ToolResultEntry struct {
	Result  ToolResult   `json:"result"`
	Labels  []string     `json:"labels,omitempty"`
	Log     string       `json:"log,omitempty"`
	Usage   []ModelUsage `json:"usage,omitempty"`
	Display *Display     `json:"display,omitempty"`
}

type ModelUsage struct {
	Model string `json:"model"`
	Usage Usage  `json:"usage"`
}

type Display struct {
	Title   string   `json:"title"`
	Body    string   `json:"body"`
	Labels  []string `json:"labels"`
	Sources []Source `json:"sources"`
	Ref     string   `json:"ref,omitempty"`
}

type Source struct {
	Title string `json:"title"`
	Ref   string `json:"ref"`
}

type ModelError struct {
	Kind       ErrorKind `json:"kind"`
	Status     int       `json:"status,omitempty"`
	Message    string    `json:"message"`
	RetryAfter time.Time `json:"retry_after,omitzero"`
	ResetsAt   time.Time `json:"resets_at,omitzero"`
	Err        error     `json:"-"`
}

// MarshalJSON does what `omitzero` does from Go 1.24 on: Go 1.19 ignores the option and
// would write the zero time as "0001-01-01T00:00:00Z".
func (e ModelError) MarshalJSON() ([]byte, error) {
	type wire struct {
		Kind       ErrorKind  `json:"kind"`
		Status     int        `json:"status,omitempty"`
		Message    string     `json:"message"`
		RetryAfter *time.Time `json:"retry_after,omitempty"`
		ResetsAt   *time.Time `json:"resets_at,omitempty"`
	}
	w := wire{Kind: e.Kind, Status: e.Status, Message: e.Message}
	if !e.RetryAfter.IsZero() {
		w.RetryAfter = &e.RetryAfter
	}
	if !e.ResetsAt.IsZero() {
		w.ResetsAt = &e.ResetsAt
	}
	return json.Marshal(w)
}

type ModelErrorEntry struct {
	Error      ModelError `json:"error"`
	Retry      bool       `json:"retry"`
	WaitMillis int64      `json:"wait_ms,omitempty"`
}

type Refusal struct {
	CallID string   `json:"call_id"`
	Tool   string   `json:"tool"`
	Labels []string `json:"labels"`
}

type Outcome struct {
	Reason    Reason      `json:"reason"`
	Text      string      `json:"text,omitempty"`
	Error     *ModelError `json:"error,omitempty"`
	Limit     string      `json:"limit,omitempty"`
	Forbidden []string    `json:"forbidden,omitempty"`
	Refused   []Refusal   `json:"refused,omitempty"`
	Turns     int         `json:"turns"`
	Usage     Usage       `json:"usage"`
}

type LabelsEntry struct {
	Labels []string `json:"labels"`
	Source string   `json:"source,omitempty"`
}

type PinsEntry struct {
	Pins map[string]string `json:"pins"`
}

// The lines meant to be bad, by file name and 1-based line, and why.
var expected = map[string]map[int]string{
	"04_torn_tail.jsonl": {
		14: "torn tail: the last line is cut inside a UTF-8 character",
	},
	"05_damaged_middle_line.jsonl": {
		17: "damaged: a line cut short in the middle of the log",
	},
	"06_transcript.jsonl": {
		9: "transcript: the closing outcome line is not an entry",
	},
	"12_odd_bytes.jsonl": {
		11: "raw U+2028 in a RawMessage: Go's encoder escapes it as \\u2028",
	},
	"15_unknown_entry.jsonl": {
		6: "a field a newer agentloop writes (tool_result.duration_ms): Go drops it",
		7: "an entry type a newer agentloop writes (checkpoint): Go drops its payload",
	},
}

type result struct {
	lines, identical, expectedBad int
	problems                      []string
}

func check(path string, r *result, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	name := filepath.Base(path)
	want := expected[name]
	seen := map[int]bool{}
	rd := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r.lines++
		why, isExpected := want[n]
		seen[n] = true
		var e Entry
		var got []byte
		problem := ""
		if uerr := json.Unmarshal(line, &e); uerr != nil {
			problem = "does not parse: " + uerr.Error()
		} else if got, err = json.Marshal(e); err != nil {
			problem = "does not marshal: " + err.Error()
		} else {
			if out != nil {
				fmt.Fprintf(out, "%d\t%s\n", n, got)
			}
			if !bytes.Equal(got, line) {
				problem = "differs"
			}
		}
		switch {
		case problem == "" && !isExpected:
			r.identical++
		case problem != "" && isExpected:
			r.expectedBad++
			fmt.Printf("%s:%d: %s (expected: %s)\n", name, n, problem, why)
		case problem == "":
			r.problems = append(r.problems, fmt.Sprintf(
				"%s:%d: identical, but expected to be bad (%s)", name, n, why))
		default:
			msg := fmt.Sprintf("%s:%d: %s", name, n, problem)
			if got != nil {
				msg += fmt.Sprintf("\n  file: %s\n  go:   %s", line, got)
			}
			r.problems = append(r.problems, msg)
		}
	}
	var missing []int
	for n := range want {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	sort.Ints(missing)
	for _, n := range missing {
		r.problems = append(r.problems, fmt.Sprintf(
			"%s:%d: expected to be bad (%s), but there is no such line", name, n, want[n]))
	}
	return nil
}

func main() {
	write := flag.String("write", "", "also write each log's round trip to this directory")
	onlyWrite := flag.Bool("any", false, "only write: lines may differ (for inputs that are not Go's)")
	flag.Parse()
	paths := flag.Args()
	if len(paths) < 1 {
		fmt.Fprintln(os.Stderr, "usage: go run . [-write DIR] FILE.jsonl...")
		os.Exit(2)
	}
	var r result
	for _, path := range paths {
		var out *os.File
		if *write != "" {
			var err error
			out, err = os.Create(filepath.Join(*write, filepath.Base(path)+".go"))
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		var w io.Writer
		if out != nil {
			w = out
		}
		if err := check(path, &r, w); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if out != nil {
			if err := out.Close(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
	}
	if *onlyWrite {
		fmt.Printf("%d files, %d lines: %d identical after a round trip\n", len(paths), r.lines, r.identical)
		return
	}
	for _, p := range r.problems {
		fmt.Println(p)
	}
	fmt.Printf("%d files, %d lines: %d identical after a round trip, %d bad as expected, %d unexpected\n",
		len(paths), r.lines, r.identical, r.expectedBad, len(r.problems))
	if len(r.problems) > 0 {
		os.Exit(1)
	}
}

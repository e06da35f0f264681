package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

const jobsUsage = `Usage: plinth jobs [--json] [--pkg PKG] COMMAND [ARG]

Commands:
  list [N]      the newest N jobs (default 100), every state
  failed [N]    the newest N retryable and discarded jobs
  show ID       one job, with its attempts' errors
  retry ID      make a job that is not running available now
  cancel ID     cancel a job that has not finished

Builds the program in PKG (default .) with -tags plinth_inspect and runs it
with PLINTH_INSPECT="jobs COMMAND [ARG]": its App.Run answers from the
jobs Client that Client.Attach attached (through the program's own backend,
so the plinth command needs no database driver) and exits, before it
listens or runs its OnStart hooks. The program opens its database before
Run, as it does to serve, from its usual environment (PLINTH_DATABASE_URL).

Flags:
  --json       print the JSON as the program wrote it
  --pkg PKG    the program's package (default .)
`

// jobInfo is the part of a job that plinth jobs prints (jobs.Info's JSON).
type jobInfo struct {
	ID          int64     `json:"id"`
	Kind        string    `json:"kind"`
	Queue       string    `json:"queue"`
	State       string    `json:"state"`
	Attempt     int       `json:"attempt"`
	MaxAttempts int       `json:"max_attempts"`
	CreatedAt   time.Time `json:"created_at"`
	ScheduledAt time.Time `json:"scheduled_at"`
	Errors      []struct {
		Attempt int       `json:"attempt"`
		At      time.Time `json:"at"`
		Error   string    `json:"error"`
	} `json:"errors"`
}

// cmdJobs is `plinth jobs`.
func cmdJobs(env *environment, args []string) error {
	fl := flag.NewFlagSet("jobs", flag.ContinueOnError)
	asJSON := fl.Bool("json", false, "")
	pkg := fl.String("pkg", ".", "")
	fl.Usage = func() { fmt.Fprint(fl.Output(), jobsUsage) }
	pos, err := parseFlags(fl, args, env.stderr)
	if err != nil {
		return err
	}
	if err := checkJobsArgs(pos); err != nil {
		return err
	}
	out, err := inspectPackage(env, "jobs "+strings.Join(pos, " "), *pkg)
	if err != nil {
		return err
	}
	if *asJSON {
		_, err := env.stdout.Write(out)
		return err
	}
	var list []jobInfo
	if pos[0] == "list" || pos[0] == "failed" {
		err = json.Unmarshal(out, &list)
	} else {
		var one jobInfo
		err = json.Unmarshal(out, &one)
		list = []jobInfo{one}
	}
	if err != nil {
		return fmt.Errorf("the program's answer is not the jobs JSON: %v", err)
	}
	return printJobs(env, list, pos[0] == "show")
}

// checkJobsArgs checks the command line before anything is built.
func checkJobsArgs(pos []string) error {
	if len(pos) == 0 {
		return usagef("jobs: want a command: list, failed, show ID, retry ID or cancel ID (see plinth jobs -h)")
	}
	switch cmd, rest := pos[0], pos[1:]; cmd {
	case "list", "failed":
		if len(rest) > 1 {
			return usagef("jobs %s takes at most one argument, the number of jobs", cmd)
		}
		if len(rest) == 1 {
			if n, err := strconv.Atoi(rest[0]); err != nil || n < 1 {
				return usagef("jobs %s %q: want a number of jobs, 1 or more", cmd, rest[0])
			}
		}
	case "show", "retry", "cancel":
		if len(rest) != 1 {
			return usagef("jobs %s takes one argument, the job's ID", cmd)
		}
		if id, err := strconv.ParseInt(rest[0], 10, 64); err != nil || id < 1 {
			return usagef("jobs %s %q: not a job ID", cmd, rest[0])
		}
	default:
		return usagef("jobs: unknown command %q: want list, failed, show ID, retry ID or cancel ID", cmd)
	}
	return nil
}

// printJobs prints jobs as aligned columns, with the last error of each
// (every error with errors set).
func printJobs(env *environment, list []jobInfo, errors bool) error {
	if len(list) == 0 {
		fmt.Fprintln(env.stdout, "no jobs")
		return nil
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tQUEUE\tSTATE\tATTEMPT\tCREATED\tLAST ERROR")
	for _, j := range list {
		last := ""
		if n := len(j.Errors); n > 0 {
			last = oneLine(j.Errors[n-1].Error, 80)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", j.ID, j.Kind, j.Queue, j.State, j.Attempt, j.MaxAttempts,
			j.CreatedAt.UTC().Format(time.DateTime), last)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if errors {
		for _, e := range list[0].Errors {
			fmt.Fprintf(env.stdout, "attempt %d at %s: %s\n", e.Attempt, e.At.UTC().Format(time.RFC3339), e.Error)
		}
	}
	return nil
}

// oneLine returns s on one line, at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// inspect answers PLINTH_INSPECT="jobs ..." (`plinth jobs`), from c's
// backend, as JSON:
//
//	list [N]      the newest N jobs (default 100), every state: an array of Info
//	failed [N]    the newest N retryable and discarded jobs
//	show ID       one job's Info
//	retry ID      makes the job available now; its Info after
//	cancel ID     cancels a job that has not finished; its Info after
func (c *Client) inspect(ctx context.Context, args []string) ([]byte, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("jobs: want list, failed, show ID, retry ID or cancel ID")
	}
	var out any
	switch cmd, rest := args[0], args[1:]; cmd {
	case "list", "failed":
		p := ListParams{}
		if cmd == "failed" {
			p.States = []State{StateRetryable, StateDiscarded}
		}
		if len(rest) > 1 {
			return nil, fmt.Errorf("jobs %s: want at most one argument, the number of jobs", cmd)
		}
		if len(rest) == 1 {
			n, err := strconv.Atoi(rest[0])
			if err != nil || n < 1 || n > MaxListLimit {
				return nil, fmt.Errorf("jobs %s %q: want a number of jobs, 1 to %d", cmd, rest[0], MaxListLimit)
			}
			p.Limit = n
		}
		list, err := c.backend.List(ctx, p)
		if err != nil {
			return nil, err
		}
		if list == nil {
			list = []Info{}
		}
		out = list
	case "show", "retry", "cancel":
		if len(rest) != 1 {
			return nil, fmt.Errorf("jobs %s: want one argument, the job's ID", cmd)
		}
		id, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || id < 1 {
			return nil, fmt.Errorf("jobs %s %q: not a job ID", cmd, rest[0])
		}
		var info Info
		switch cmd {
		case "show":
			info, err = c.backend.Job(ctx, id)
		case "retry":
			info, err = c.backend.Retry(ctx, id)
		default:
			info, err = c.backend.Cancel(ctx, id)
		}
		if err != nil {
			return nil, err
		}
		out = info
	default:
		return nil, fmt.Errorf("jobs %q: want list, failed, show ID, retry ID or cancel ID", cmd)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	return append(b, '\n'), err
}

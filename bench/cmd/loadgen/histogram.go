package main

import (
	"math"
	"math/bits"
	"time"
)

// histogram counts latencies in log-linear buckets, as HdrHistogram does:
// values below subCount nanoseconds each have a bucket, and every power of
// two above is split into subCount/2 equal buckets, so a bucket is never
// wider than 1/64 of its values (under 1.6 % error) and the whole range of
// int64 nanoseconds fits in fixed memory (about 30 KiB).
type histogram struct {
	counts [bucketCount]uint64
	n      uint64
	sum    float64 // nanoseconds, for the mean
	max    int64
}

const (
	subBits     = 7
	subCount    = 1 << subBits // 128
	halfSub     = subCount / 2
	bucketCount = subCount + (64-subBits)*halfSub
)

// bucketOf returns the bucket index of v nanoseconds (v >= 0).
func bucketOf(v int64) int {
	if v < subCount {
		return int(max(v, 0))
	}
	e := bits.Len64(uint64(v)) - subBits // >= 1: v>>e has subBits bits
	return subCount + (e-1)*halfSub + int(uint64(v)>>e) - halfSub
}

// bucketRange returns the values [lo, hi) that bucket i holds.
func bucketRange(i int) (lo, hi int64) {
	if i < subCount {
		return int64(i), int64(i) + 1
	}
	e := (i-subCount)/halfSub + 1
	m := int64((i-subCount)%halfSub + halfSub)
	return m << e, (m + 1) << e
}

func (h *histogram) record(d time.Duration) {
	v := int64(d)
	h.counts[bucketOf(v)]++
	h.n++
	h.sum += float64(v)
	h.max = max(h.max, v)
}

func (h *histogram) merge(o *histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// quantile returns the q-quantile (0 < q <= 1): the middle of the bucket
// holding the ceil(q*n)-th smallest value, capped at the largest value seen.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := bucketRange(i)
			return time.Duration(min(lo+(hi-lo)/2, h.max))
		}
	}
	return time.Duration(h.max)
}

func (h *histogram) mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sum / float64(h.n))
}

package cache

import (
	"encoding/json"
	"unsafe"
)

// Codec turns T into bytes and back, for the Stores that keep bytes (Redis)
// and for an entry's size on MemoryStore. The default, DefaultCodec, is JSON,
// except for string and []byte, kept as they are.
type Codec[T any] interface {
	// Append appends v's encoding to dst.
	Append(dst []byte, v T) ([]byte, error)
	// Decode returns the value data encodes. data is a Store's value:
	// immutable, so it may be kept (the default codec's strings share it),
	// never modified. A value, not a pointer to fill: a pointer passed
	// through the interface would escape, an allocation per hit.
	Decode(data []byte) (T, error)
}

// JSON is the Codec over encoding/json.
type JSON[T any] struct{}

// Append implements Codec.
func (JSON[T]) Append(dst []byte, v T) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// Decode implements Codec.
func (JSON[T]) Decode(data []byte) (T, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

type stringCodec struct{}

func (stringCodec) Append(dst []byte, v string) ([]byte, error) { return append(dst, v...), nil }

// Decode shares data's bytes: a Store's values are immutable (Store's
// contract: Get's slice is never modified), so the string stays valid, and a
// hit saves a copy.
func (stringCodec) Decode(data []byte) (string, error) {
	return unsafe.String(unsafe.SliceData(data), len(data)), nil
}

type bytesCodec struct{}

func (bytesCodec) Append(dst []byte, v []byte) ([]byte, error) { return append(dst, v...), nil }
func (bytesCodec) Decode(data []byte) ([]byte, error)          { return append([]byte(nil), data...), nil }

// DefaultCodec returns the codec Of[T] uses unless Config.Codec says otherwise:
// the bytes themselves for string and []byte (readable in redis-cli, and no
// quoting), JSON for everything else.
func DefaultCodec[T any]() Codec[T] {
	var zero T
	switch any(zero).(type) {
	case string:
		return any(stringCodec{}).(Codec[T])
	case []byte:
		return any(bytesCodec{}).(Codec[T])
	}
	return JSON[T]{}
}

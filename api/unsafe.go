package api

import (
	"reflect"
	"unsafe"
)

// This file holds the package's unsafe operations, which the compiled
// checks (check, validate.go) and the parameter parsers (parseFunc,
// scalar.go) use to reach fields by offset; their doc comments give what
// that saves over reflect.Value, measured. Everything else reaches values
// through reflect.Value.
//
// The contract: an unsafe.Pointer handed to a check or a parser points to a
// live value of the type the function was compiled for, inside a value
// that the caller holds (an In, a Binder's T, a Checker's argument), and
// offsets come from reflect.StructField.Offset of that type.

// at returns p as a *T; p must point to a T.
func at[T any](p unsafe.Pointer) *T { return (*T)(p) }

// addr returns the address offset bytes after p: a field of the struct at
// p, or an element of the array at p.
func addr(p unsafe.Pointer, offset uintptr) unsafe.Pointer { return unsafe.Add(p, offset) }

// signed and unsigned are the integer types, by the kinds reflect names.
type (
	signed interface {
		~int | ~int8 | ~int16 | ~int32 | ~int64
	}
	unsigned interface {
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
	}
)

// intAccess returns the functions that read and write a signed integer of
// kind k at a pointer, as an int64.
func intAccess(k reflect.Kind) (load func(unsafe.Pointer) int64, store func(unsafe.Pointer, int64)) {
	switch k {
	case reflect.Int8:
		return loadInt[int8], storeInt[int8]
	case reflect.Int16:
		return loadInt[int16], storeInt[int16]
	case reflect.Int32:
		return loadInt[int32], storeInt[int32]
	case reflect.Int64:
		return loadInt[int64], storeInt[int64]
	}
	return loadInt[int], storeInt[int]
}

// uintAccess returns the functions that read and write an unsigned
// integer of kind k at a pointer, as a uint64.
func uintAccess(k reflect.Kind) (load func(unsafe.Pointer) uint64, store func(unsafe.Pointer, uint64)) {
	switch k {
	case reflect.Uint8:
		return loadUint[uint8], storeUint[uint8]
	case reflect.Uint16:
		return loadUint[uint16], storeUint[uint16]
	case reflect.Uint32:
		return loadUint[uint32], storeUint[uint32]
	case reflect.Uint64:
		return loadUint[uint64], storeUint[uint64]
	case reflect.Uintptr:
		return loadUint[uintptr], storeUint[uintptr]
	}
	return loadUint[uint], storeUint[uint]
}

// loadInt, storeInt, loadUint and storeUint read and write an integer of
// type T at p, as the 64-bit integer of its signedness; a store truncates,
// so the value must fit T (the parsers parse with T's bit size).
func loadInt[T signed](p unsafe.Pointer) int64         { return int64(*at[T](p)) }
func storeInt[T signed](p unsafe.Pointer, n int64)     { *at[T](p) = T(n) }
func loadUint[T unsigned](p unsafe.Pointer) uint64     { return uint64(*at[T](p)) }
func storeUint[T unsigned](p unsafe.Pointer, n uint64) { *at[T](p) = T(n) }

// sliceHeader is the layout of every Go slice, read by the checks of
// slices.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	_    int // the capacity
}

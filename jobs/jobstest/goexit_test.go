package jobstest_test

import "runtime"

func runtimeGoexit() { runtime.Goexit() }

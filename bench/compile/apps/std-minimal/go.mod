module example.com/std-minimal

go 1.26.0

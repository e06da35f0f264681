module example.com/huma-minimal

go 1.26.0

require github.com/danielgtaylor/huma/v2 v2.37.2

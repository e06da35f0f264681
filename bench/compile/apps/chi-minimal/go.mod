module example.com/chi-minimal

go 1.26.0

require github.com/go-chi/chi/v5 v5.5.0

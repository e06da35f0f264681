module github.com/plinth-go/plinth

go 1.26

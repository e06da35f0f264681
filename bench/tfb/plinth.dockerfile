# TechEmpower submission image for Plinth (cmd/tfb-server). TFB builds it
# from the framework directory; the build context must hold the Plinth
# repository (bench/tfb needs ../.. and ../../data through its replace
# directives), e.g. from the repository root:
#
#	docker build -f bench/tfb/plinth.dockerfile -t plinth-tfb .
FROM golang:1.26 AS build
WORKDIR /src
COPY . .
WORKDIR /src/bench/tfb
RUN CGO_ENABLED=0 go build -trimpath -o /plinth-tfb ./cmd/tfb-server

FROM gcr.io/distroless/static-debian12
COPY --from=build /plinth-tfb /plinth-tfb
ENV PLINTH_ADDR=:8080 \
    DATABASE_URL=postgres://benchmarkdbuser:benchmarkdbpass@tfb-database:5432/hello_world
EXPOSE 8080
CMD ["/plinth-tfb"]

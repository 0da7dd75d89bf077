package extract

//go:generate go run ./internal/genschemes -in ../../shared/data/uri/iana-uri-schemes.txt -out schemes_gen.go

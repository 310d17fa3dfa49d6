// The OpenTelemetry Collector as lanes-opentelemetry's LanesTelemetryCollectorTest runs it: the
// core OTLP receiver and OTLP/HTTP exporter, logging to stderr, no telemetry of its own.
// `./lanes test` builds it (go build).
package main

import (
	"context"
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry"
	"go.uber.org/zap"
)

// telemetryFactory: a zap logger to stderr; no metrics or traces of the collector itself. Its
// configuration has no settings, so the config file has no service.telemetry section.
func telemetryFactory() telemetry.Factory {
	return telemetry.NewFactory(
		func() component.Config { return &struct{}{} },
		telemetry.WithCreateLogger(func(context.Context, telemetry.LoggerSettings, component.Config) (*zap.Logger, component.ShutdownFunc, error) {
			logger, err := zap.NewDevelopment()
			if err != nil {
				return nil, nil, err
			}
			return logger, func(context.Context) error { _ = logger.Sync(); return nil }, nil
		}))
}

func components() (otelcol.Factories, error) {
	var err error
	f := otelcol.Factories{Telemetry: telemetryFactory()}
	f.Receivers, err = otelcol.MakeFactoryMap[receiver.Factory](otlpreceiver.NewFactory())
	if err != nil {
		return f, err
	}
	f.Exporters, err = otelcol.MakeFactoryMap[exporter.Factory](otlphttpexporter.NewFactory())
	return f, err
}

func main() {
	info := component.BuildInfo{Command: "lanes-otelcol", Description: "OTLP in, OTLP/HTTP out", Version: "0.165.0"}
	set := otelcol.CollectorSettings{
		BuildInfo: info,
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
				// The test's config names no ${...}; the file provider is the only one built in.
				DefaultScheme: "file",
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		log.Fatal(err)
	}
}

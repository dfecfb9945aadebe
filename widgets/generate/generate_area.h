// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_trace.h"

#include <QList>
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QScrollArea;
class QSlider;
class QSpinBox;
class QTimer;

namespace dice {

class DecodePlots;
class ColorKey;
class DenoisingCanvas;
class GenerationJob;
class WorkbenchState;
struct GenerationOutcome;
struct DecodeStep;
struct SamplerOptions;

// Generate: a task (in the native or the KernelBench prompt) or a free prompt, every decoding
// setting of the sampler, Generate and Stop; the live denoising canvas with its timeline, the
// plots (with autoregressive decoding side by side on request), the figures, export of the step
// trace and the code, and hand-over to Profile and Infill.
class GenerateArea : public QWidget {
    Q_OBJECT
public:
    explicit GenerateArea(WorkbenchState* state, QWidget* parent = nullptr);

    bool generateEnabled() const;
    // The line under the buttons: the model, progress, or what stops a generation (tests read it).
    QString statusText() const;
    // What the area says when the embedded model is asked something it was not trained on;
    // empty when it says nothing.
    QString scopeNote() const;
    DenoisingCanvas* canvas() const { return m_canvas; }
    DecodePlots* plots() const { return m_plots; }
    QSlider* timeline() const { return m_timeline; }
    const DecodeTrace& trace() const { return m_trace; }
    const DecodeTrace& autoregressiveTrace() const { return m_arTrace; }
    QString answerText() const { return m_answer; }
    QString figuresText() const;
    SamplerOptions samplerOptions() const;

    void setFreePrompt(const QString& text);
    void setCompareAutoregressive(bool on);
    void setMaxTokens(int tokens);
    void startGeneration();
    void stopGeneration();
    // Writes the trace as JSON lines; returns false with a message on failure.
    bool exportTrace(const QString& path, QString* error = nullptr) const;
    bool exportCode(const QString& path, QString* error = nullptr) const;
    // Loads a trace written by exportTrace (or `dice generate --trace`) into the view.
    bool importTrace(const QString& path, QString* error = nullptr);

Q_SIGNALS:
    void sendToProfile(const QString& code);
    void sendToInfill(const QString& code);
    void generationDone();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void updatePrompt();
    void updateAvailability();
    void updateScopeNote();
    // Forgets the answer and its trace (stopping a generation in flight).
    void clearAnswer();
    // The answers, their traces and rates set back to none.
    void forgetResult();
    void applyPreset(int index);
    bool running() const { return !m_job.isNull(); }
    void onStep(int pass, const DecodeStep& step);
    void onFinished(const GenerationOutcome& outcome);
    void onFailed(const QString& message);
    void onDone();
    void refreshView();
    void updateFigures();
    void setTimelineStep(int step);
    void togglePlay();
    QString codeToSend() const;

    WorkbenchState* m_state;
    QGroupBox* m_sourceBox;
    QRadioButton* m_fromTask;
    QRadioButton* m_freePrompt;
    QComboBox* m_promptStyle;
    QCheckBox* m_chat;
    QPlainTextEdit* m_prompt;
    QGroupBox* m_decodingBox;
    QFormLayout* m_form;
    QComboBox* m_preset;
    QSpinBox* m_blockLength;
    QSpinBox* m_steps;
    QComboBox* m_strategy;
    QDoubleSpinBox* m_threshold;
    QDoubleSpinBox* m_ebThreshold;
    QDoubleSpinBox* m_temperature;
    QSpinBox* m_topK;
    QDoubleSpinBox* m_topP;
    QSpinBox* m_maxTokens;
    QSpinBox* m_seed;
    QCheckBox* m_rawConfidence;
    QCheckBox* m_compareAr;
    QList<QLabel*> m_labels;
    QPushButton* m_generate;
    QPushButton* m_stop;
    QLabel* m_status;
    QLabel* m_scopeNote;
    QComboBox* m_colorMode;
    QLabel* m_colorLabel;
    DenoisingCanvas* m_canvas;
    QScrollArea* m_canvasScroll;
    DecodePlots* m_plots;
    QPushButton* m_play;
    QSlider* m_timeline;
    QLabel* m_stepLabel;
    QLabel* m_figures;
    QPushButton* m_exportTrace;
    QPushButton* m_exportCode;
    QPushButton* m_importTrace;
    QPushButton* m_toProfile;
    QPushButton* m_toInfill;
    ColorKey* m_colorKey;
    QTimer* m_playTimer;
    QTimer* m_viewTimer;

    DecodeTrace m_trace;
    DecodeTrace m_arTrace;
    QString m_answer;
    // What the last generation came to ("Done.", "Stopped after…", a failure), for the status.
    QString m_outcome;
    QString m_arAnswer;
    QPointer<GenerationJob> m_job; // the generation this area waits for
    bool m_viewDirty = false;
    double m_tokensPerSecond = 0;
    double m_arTokensPerSecond = 0;
};

} // namespace dice

// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_trace.h"

#include <QPointer>
#include <QWidget>

#include <deque>
#include <map>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTreeWidget;

namespace dice {

class CodeEditor;
class DenoisingCanvas;
class FindBar;
class GenerationJob;
class WorkbenchState;
struct DecodeStep;
struct GenerationOutcome;

// Infill: a skeleton in the editor, its holes ({{hole}} / {{hole:NAME}}, docs/infill.md) listed
// and marked; the model fills one or all of them with the rest of the file as context, each
// hole with its own denoising view; every proposal is accepted or rejected on its own (one undo
// step each); the diff of the result against the skeleton.
class InfillArea : public QWidget {
    Q_OBJECT
public:
    enum class HoleState { Empty, Queued, Filling, Proposed, Failed };

    explicit InfillArea(WorkbenchState* state, QWidget* parent = nullptr);

    CodeEditor* editor() const { return m_editor; }
    QTreeWidget* holeList() const { return m_holes; }
    DenoisingCanvas* canvas() const { return m_canvas; }
    // The skeleton the diff is taken against, and the editor's text.
    void setSkeleton(const QString& text);
    // The line under the editor: what the area is doing, or what it needs.
    QString statusText() const;
    QString skeleton() const { return m_skeleton; }
    QString text() const;
    QString diffText() const;
    // The names of the holes in the editor now ("" for an anonymous one), in order.
    QStringList holeNames() const;
    HoleState holeState(const QString& name) const;
    QString proposal(const QString& name) const;

    // Replaces the selection with a hole marker; returns false (and says why) when there is no
    // selection or the name is not usable.
    bool makeHoleFromSelection(const QString& name, QString* error = nullptr);
    void fillHole(const QString& name);
    void fillAll();
    void stop();
    bool accept(const QString& name);
    // Accepts every proposal and shows the diff against the skeleton; returns how many.
    int acceptAll();
    void reject(const QString& name);
    // The prompt the model gets for a hole (tests and the "show prompt" view read it).
    QString promptFor(const QString& name, QString* error = nullptr) const;

Q_SIGNALS:
    void sendToProfile(const QString& code);
    void allFinished();

protected:
    void changeEvent(QEvent* event) override;

private:
    struct HoleWork {
        HoleState state = HoleState::Empty;
        QString proposal;
        QString note;
        DecodeTrace trace;
    };
    void retranslate();
    void loadTaskSkeleton();
    void refreshHoles();
    void markHoles();
    void showHoleTrace();
    QString selectedHole() const;
    void selectFromName(const QString& name);
    void startNext();
    void onStep(const DecodeStep& step);
    void onFinished(const GenerationOutcome& outcome);
    void onFailed(const QString& message);
    void onDone();
    QString answerToContent(const QString& name, const QString& answer, QString* note) const;
    QString contextText(const QString& name) const;
    void updateButtons();

    WorkbenchState* m_state;
    CodeEditor* m_editor;
    FindBar* m_findBar;
    QTreeWidget* m_holes;
    DenoisingCanvas* m_canvas;
    QPlainTextEdit* m_diff;
    QTabWidget* m_tabs;
    QPushButton* m_makeHole;
    QPushButton* m_fillOne;
    QPushButton* m_fillAll;
    QPushButton* m_stop;
    QPushButton* m_accept;
    QPushButton* m_reject;
    QPushButton* m_undo;
    QPushButton* m_reset;
    QPushButton* m_toProfile;
    QLabel* m_status;
    QString m_skeleton;
    std::map<QString, HoleWork> m_work; // node-based: the canvas points at a trace in it
    std::deque<QString> m_queue;
    QString m_filling;
    QPointer<GenerationJob> m_job; // the fill of m_filling
    int m_holeIndicator = -1;
    int m_proposalIndicator = -1;
};

} // namespace dice
